//! Pins: a fingerprint of each definition a server shows, and what changed
//! since. (Being written: see issue 14.)
