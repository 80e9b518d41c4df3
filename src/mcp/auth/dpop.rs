//! DPoP (RFC 9449; SEP-1932, the `io.modelcontextprotocol/auth/dpop`
//! extension): sender-constrained access tokens.
//!
//! A [`DpopKey`] is one server's EC P-256 key pair, made by ring and kept
//! (as PKCS#8, base64url) with the token it is bound to, in the credential
//! store. It signs a fresh proof for every request: at the token endpoint
//! (no `ath`) and on every MCP request (with `ath`, the hash of the access
//! token). The nonces servers hand out (`DPoP-Nonce`) are kept beside the
//! key, one for the authorization server and one for the MCP server, and
//! go into the next proofs to each.

use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::json;

use crate::mcp::bearer::Secret;

/// The one algorithm mcpdeck signs proofs with.
pub const ALG: &str = "ES256";

/// Why no proof could be made.
#[derive(Debug, thiserror::Error)]
pub enum DpopError {
    #[error("cannot make a DPoP key pair")]
    Generate,
    /// A stored key that is not base64url PKCS#8 of a P-256 key.
    #[error("the stored DPoP key is unreadable ({0}); log in again")]
    Stored(&'static str),
    #[error("signing the DPoP proof failed")]
    Sign,
}

/// A server's DPoP key pair and the nonces its servers asked for.
pub struct DpopKey {
    pkcs8: Secret,
    pair: EcdsaKeyPair,
    /// The public key as a JWK (`crv`, `kty`, `x`, `y`).
    jwk: serde_json::Value,
    /// The last `DPoP-Nonce` of the authorization server.
    as_nonce: Mutex<Option<String>>,
    /// The last `DPoP-Nonce` of the MCP server.
    rs_nonce: Mutex<Option<String>>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint())
            .finish()
    }
}

/// Which server a nonce is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonceFrom {
    AuthorizationServer,
    McpServer,
}

impl DpopKey {
    /// A new key pair.
    pub fn generate() -> Result<DpopKey, DpopError> {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| DpopError::Generate)?;
        let stored = Secret::new(URL_SAFE_NO_PAD.encode(doc.as_ref()));
        DpopKey::from_stored(&stored).map_err(|_| DpopError::Generate)
    }

    /// The key kept with a token ([`DpopKey::stored`]).
    pub fn from_stored(stored: &Secret) -> Result<DpopKey, DpopError> {
        let der = URL_SAFE_NO_PAD
            .decode(stored.expose().trim())
            .map_err(|_| DpopError::Stored("not base64url"))?;
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
                .map_err(|_| DpopError::Stored("not a P-256 PKCS#8 key"))?;
        // An uncompressed point: 0x04, x (32 bytes), y (32 bytes).
        let point = pair.public_key().as_ref();
        if point.len() != 65 || point[0] != 4 {
            return Err(DpopError::Stored("not an uncompressed P-256 point"));
        }
        let jwk = json!({
            "crv": "P-256",
            "kty": "EC",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(DpopKey {
            pkcs8: stored.clone(),
            pair,
            jwk,
            as_nonce: Mutex::new(None),
            rs_nonce: Mutex::new(None),
        })
    }

    /// What the credential store keeps: the private key, base64url PKCS#8.
    pub fn stored(&self) -> Secret {
        self.pkcs8.clone()
    }

    /// The public key as a JWK.
    pub fn jwk(&self) -> &serde_json::Value {
        &self.jwk
    }

    /// The RFC 7638 thumbprint of the public key (what a bound token's
    /// `cnf.jkt` holds).
    pub fn thumbprint(&self) -> String {
        // The required members in lexicographic order, no whitespace.
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            self.jwk["x"].as_str().unwrap_or_default(),
            self.jwk["y"].as_str().unwrap_or_default()
        );
        URL_SAFE_NO_PAD.encode(ring::digest::digest(
            &ring::digest::SHA256,
            canonical.as_bytes(),
        ))
    }

    /// Remember the nonce a server handed out.
    pub fn set_nonce(&self, from: NonceFrom, nonce: &str) {
        let nonce = nonce.trim();
        // RFC 9449 §8.1: a nonce is NQCHAR, printable ASCII without quotes
        // and backslashes; anything else is not kept.
        if nonce.is_empty()
            || nonce.len() > 1024
            || !nonce
                .bytes()
                .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
        {
            return;
        }
        let slot = match from {
            NonceFrom::AuthorizationServer => &self.as_nonce,
            NonceFrom::McpServer => &self.rs_nonce,
        };
        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(nonce.to_string());
    }

    /// The nonce last handed out by a server.
    pub fn nonce(&self, from: NonceFrom) -> Option<String> {
        let slot = match from {
            NonceFrom::AuthorizationServer => &self.as_nonce,
            NonceFrom::McpServer => &self.rs_nonce,
        };
        slot.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// A proof for one request: `htm` the method, `htu` the URL (its query
    /// and fragment are left out), `token` the access token it carries
    /// (for `ath`), and the server's nonce when it gave one. `now` in
    /// seconds since the epoch.
    pub fn proof(
        &self,
        htm: &str,
        htu: &str,
        token: Option<&Secret>,
        from: NonceFrom,
        now: u64,
    ) -> Result<String, DpopError> {
        let rng = SystemRandom::new();
        let mut jti = [0u8; 16];
        rng.fill(&mut jti).map_err(|_| DpopError::Sign)?;
        let header = json!({ "typ": "dpop+jwt", "alg": ALG, "jwk": self.jwk });
        let mut claims = json!({
            "jti": URL_SAFE_NO_PAD.encode(jti),
            "htm": htm,
            "htu": target_uri(htu),
            "iat": now,
        });
        if let Some(t) = token {
            claims["ath"] = URL_SAFE_NO_PAD
                .encode(ring::digest::digest(
                    &ring::digest::SHA256,
                    t.expose().as_bytes(),
                ))
                .into();
        }
        if let Some(n) = self.nonce(from) {
            claims["nonce"] = n.into();
        }
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let sig = self
            .pair
            .sign(&rng, input.as_bytes())
            .map_err(|_| DpopError::Sign)?;
        Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref())))
    }
}

/// RFC 9449 §4.2: `htu` is the request's URI without query and fragment.
pub fn target_uri(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            // Never the user and password of the URL.
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or_default().to_string(),
    }
}

/// Whether an authorization server can take ES256 proofs: it lists
/// `dpop_signing_alg_values_supported` with ES256 in it.
pub fn supported_by(algs: Option<&[String]>) -> bool {
    algs.is_some_and(|l| l.iter().any(|a| a == ALG))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    fn part(jwt: &str, i: usize) -> serde_json::Value {
        let p = jwt.split('.').nth(i).unwrap_or_default();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap_or_default()).unwrap_or_default()
    }

    #[test]
    fn a_proof_verifies_with_the_key_in_its_header_and_binds_the_token() {
        let k = DpopKey::generate().expect("key");
        let token = Secret::new("tok-123");
        k.set_nonce(NonceFrom::McpServer, "n-1");
        let p = k
            .proof(
                "POST",
                "https://mcp.example/mcp?x=1#f",
                Some(&token),
                NonceFrom::McpServer,
                1000,
            )
            .expect("proof");
        let h = part(&p, 0);
        let c = part(&p, 1);
        assert_eq!(h["typ"], "dpop+jwt");
        assert_eq!(h["alg"], "ES256");
        assert!(h["jwk"].get("d").is_none(), "no private part in the header");
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["htu"], "https://mcp.example/mcp");
        assert_eq!(c["iat"], 1000);
        assert_eq!(c["nonce"], "n-1");
        let ath = URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, b"tok-123"));
        assert_eq!(c["ath"], ath);
        // The signature verifies with the public point the JWK carries.
        let x = URL_SAFE_NO_PAD
            .decode(h["jwk"]["x"].as_str().unwrap_or_default())
            .unwrap_or_default();
        let y = URL_SAFE_NO_PAD
            .decode(h["jwk"]["y"].as_str().unwrap_or_default())
            .unwrap_or_default();
        let mut point = vec![4u8];
        point.extend(x);
        point.extend(y);
        let (input, sig) = p.rsplit_once('.').unwrap_or_default();
        let sig = URL_SAFE_NO_PAD.decode(sig).unwrap_or_default();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
            .verify(input.as_bytes(), &sig)
            .expect("the proof's signature verifies");
        // Each proof is fresh.
        let q = k
            .proof(
                "POST",
                "https://mcp.example/mcp",
                Some(&token),
                NonceFrom::McpServer,
                1000,
            )
            .expect("proof");
        assert_ne!(part(&q, 1)["jti"], c["jti"]);
        // The authorization server's nonce is its own; none was given.
        let t = k
            .proof(
                "POST",
                "https://as.example/token",
                None,
                NonceFrom::AuthorizationServer,
                1000,
            )
            .expect("proof");
        assert!(part(&t, 1).get("nonce").is_none());
        assert!(part(&t, 1).get("ath").is_none());
    }

    #[test]
    fn a_stored_key_comes_back_with_the_same_thumbprint() {
        let k = DpopKey::generate().expect("key");
        let again = DpopKey::from_stored(&k.stored()).expect("read back");
        assert_eq!(k.thumbprint(), again.thumbprint());
        assert_eq!(k.thumbprint().len(), 43);
        assert!(DpopKey::from_stored(&Secret::new("not base64 !")).is_err());
        assert!(DpopKey::from_stored(&Secret::new("AAAA")).is_err());
    }

    #[test]
    fn nonces_that_are_not_nqchar_are_not_kept() {
        let k = DpopKey::generate().expect("key");
        k.set_nonce(NonceFrom::AuthorizationServer, "bad\"nonce");
        assert_eq!(k.nonce(NonceFrom::AuthorizationServer), None);
        k.set_nonce(NonceFrom::AuthorizationServer, "ok-nonce_1");
        assert_eq!(
            k.nonce(NonceFrom::AuthorizationServer).as_deref(),
            Some("ok-nonce_1")
        );
        assert_eq!(k.nonce(NonceFrom::McpServer), None);
    }

    #[test]
    fn htu_has_no_query_or_fragment() {
        assert_eq!(
            target_uri("https://a.example/t?x=1#y"),
            "https://a.example/t"
        );
        assert_eq!(target_uri("not a url?x"), "not a url");
    }
}
