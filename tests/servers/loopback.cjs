// Preloaded with `node --require` by the tests: every server in this process
// listens on 127.0.0.1 only (server-everything listens on all interfaces).
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  const isPort =
    typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first));
  if (isPort && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  } else if (first && typeof first === "object" && first.port !== undefined && !first.host) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
