//! `private_key_jwt` client assertions (RFC 7523 §2.2, RFC 7521).
//!
//! [`client_assertion`] signs a short-lived JWT with the client's private
//! key, a PKCS#8 PEM file: EC P-256 signs ES256, RSA signs RS256. The PEM is
//! decoded here by hand; keys in other formats (SEC1 `EC PRIVATE KEY`, PKCS#1
//! `RSA PRIVATE KEY`, encrypted) are refused with the `openssl` command that
//! converts them. No error message ever carries key material.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, RSA_PKCS1_SHA256, RsaKeyPair,
};

/// How long an assertion is valid, in seconds.
pub const LIFETIME: u64 = 300;

const CONVERT: &str = "convert it with `openssl pkcs8 -topk8 -nocrypt -in key.pem -out key.p8.pem`";

/// Why no assertion could be signed.
#[derive(Debug, thiserror::Error)]
pub enum JwtError {
    /// No `-----BEGIN …-----` block at all.
    #[error("the private key is not PEM (expected a `-----BEGIN PRIVATE KEY-----` block)")]
    NotPem,
    /// PEM, but not an unencrypted PKCS#8 private key ring can read.
    #[error("the private key is not a usable PKCS#8 key: {0}")]
    NotPkcs8(String),
    /// A PKCS#8 key of a kind that cannot sign ES256 or RS256.
    #[error("unsupported private key: {0}")]
    UnsupportedKey(String),
    /// An algorithm other than ES256 and RS256 was asked for.
    #[error("unsupported signing algorithm {0:?} (ES256 or RS256)")]
    UnsupportedAlg(String),
    /// The algorithm asked for does not fit the key.
    #[error("the signing algorithm {alg} does not fit the key, which is {key} (it signs {signs})")]
    AlgMismatch {
        alg: String,
        key: &'static str,
        signs: &'static str,
    },
    /// Signing failed.
    #[error("signing the client assertion failed")]
    Sign,
}

/// A signed JWT for `client_assertion`: header `{"alg": "ES256"|"RS256",
/// "typ": "JWT"}`, claims `{iss: client_id, sub: client_id, aud: audience,
/// iat: now, exp: now + 300, jti: 128-bit random hex}`.
///
/// `pem` is a PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`): EC
/// P-256 signs ES256 (the 64-byte `r || s` signature), RSA signs RS256
/// (PKCS#1 v1.5 with SHA-256). `alg`, when given, must fit the key (else an
/// error naming both); `None` takes it from the key. `now` is in seconds
/// since the Unix epoch.
pub fn client_assertion(
    pem: &str,
    alg: Option<&str>,
    client_id: &str,
    audience: &str,
    now: u64,
) -> Result<String, JwtError> {
    client_assertion_with_kid(pem, alg, None, client_id, audience, now)
}

/// [`client_assertion`] with a `kid` header when `kid` is given (for an
/// authorization server that holds several of the client's keys).
pub fn client_assertion_with_kid(
    pem: &str,
    alg: Option<&str>,
    kid: Option<&str>,
    client_id: &str,
    audience: &str,
    now: u64,
) -> Result<String, JwtError> {
    let der = pem_to_der(pem)?;
    let rng = SystemRandom::new();
    let key = SigningKey::from_pkcs8(&der, &rng)?;
    if let Some(alg) = alg {
        let wanted = match alg.trim().to_ascii_uppercase().as_str() {
            "ES256" => "ES256",
            "RS256" => "RS256",
            _ => return Err(JwtError::UnsupportedAlg(alg.to_string())),
        };
        if wanted != key.alg() {
            return Err(JwtError::AlgMismatch {
                alg: wanted.to_string(),
                key: key.description(),
                signs: key.alg(),
            });
        }
    }

    let mut header = serde_json::json!({ "alg": key.alg(), "typ": "JWT" });
    if let Some(kid) = kid {
        header["kid"] = serde_json::Value::String(kid.to_string());
    }
    let mut jti = [0u8; 16];
    rng.fill(&mut jti).map_err(|_| JwtError::Sign)?;
    let jti: String = jti.iter().map(|b| format!("{b:02x}")).collect();
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now.saturating_add(LIFETIME),
        "jti": jti,
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = key.sign(signing_input.as_bytes(), &rng)?;
    Ok(format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(signature)
    ))
}

/// A key that signs.
enum SigningKey {
    Es256(EcdsaKeyPair),
    Rs256(RsaKeyPair),
}

impl SigningKey {
    fn from_pkcs8(der: &[u8], rng: &SystemRandom) -> Result<SigningKey, JwtError> {
        match KeyKind::of(der) {
            KeyKind::EcP256 => EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, rng)
                .map(SigningKey::Es256)
                .map_err(|e| JwtError::NotPkcs8(format!("an EC P-256 key ring rejects ({e})"))),
            KeyKind::EcOther => Err(JwtError::UnsupportedKey(
                "an EC key on a curve other than P-256 (ES256 needs P-256; \
                 make one with `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`)"
                    .into(),
            )),
            KeyKind::Rsa => RsaKeyPair::from_pkcs8(der)
                .map(SigningKey::Rs256)
                .map_err(|e| match e.to_string().as_str() {
                    "TooSmall" | "TooLarge" => JwtError::UnsupportedKey(format!(
                        "an RSA key of a size ring refuses ({e}; 2048 to 8192 bits)"
                    )),
                    _ => JwtError::NotPkcs8(format!("an RSA key ring rejects ({e})")),
                }),
            KeyKind::Ed25519 => Err(JwtError::UnsupportedKey(
                "an Ed25519 key (EdDSA is not supported: use an EC P-256 or RSA key)".into(),
            )),
            KeyKind::Unknown => {
                // Not recognised from its algorithm identifier: let ring try.
                if let Ok(k) = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, rng)
                {
                    return Ok(SigningKey::Es256(k));
                }
                if let Ok(k) = RsaKeyPair::from_pkcs8(der) {
                    return Ok(SigningKey::Rs256(k));
                }
                Err(JwtError::NotPkcs8(
                    "neither an EC P-256 nor an RSA PKCS#8 private key".into(),
                ))
            }
        }
    }

    fn alg(&self) -> &'static str {
        match self {
            SigningKey::Es256(_) => "ES256",
            SigningKey::Rs256(_) => "RS256",
        }
    }

    fn description(&self) -> &'static str {
        match self {
            SigningKey::Es256(_) => "an EC P-256 key",
            SigningKey::Rs256(_) => "an RSA key",
        }
    }

    fn sign(&self, message: &[u8], rng: &SystemRandom) -> Result<Vec<u8>, JwtError> {
        match self {
            SigningKey::Es256(k) => k
                .sign(rng, message)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| JwtError::Sign),
            SigningKey::Rs256(k) => {
                let mut sig = vec![0u8; k.public().modulus_len()];
                k.sign(&RSA_PKCS1_SHA256, rng, message, &mut sig)
                    .map_err(|_| JwtError::Sign)?;
                Ok(sig)
            }
        }
    }
}

/// What a PKCS#8 key is, from the object identifiers in its algorithm
/// identifier (near its start).
#[derive(Debug, PartialEq, Eq)]
enum KeyKind {
    EcP256,
    EcOther,
    Rsa,
    Ed25519,
    Unknown,
}

impl KeyKind {
    fn of(der: &[u8]) -> KeyKind {
        // 1.2.840.10045.2.1 id-ecPublicKey
        const EC: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
        // 1.2.840.10045.3.1.7 prime256v1
        const P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
        // 1.2.840.113549.1.1.1 rsaEncryption
        const RSA: &[u8] = &[
            0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
        ];
        // 1.3.101.112 id-Ed25519
        const ED25519: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x70];
        // The version and algorithm identifier come first.
        let head = &der[..der.len().min(40)];
        let has = |oid: &[u8]| head.windows(oid.len()).any(|w| w == oid);
        if has(EC) {
            if has(P256) {
                KeyKind::EcP256
            } else {
                KeyKind::EcOther
            }
        } else if has(RSA) {
            KeyKind::Rsa
        } else if has(ED25519) {
            KeyKind::Ed25519
        } else {
            KeyKind::Unknown
        }
    }
}

/// The DER inside the first PEM private key block.
fn pem_to_der(pem: &str) -> Result<Vec<u8>, JwtError> {
    // A key pasted from JSON may carry its line breaks as `\n`.
    let unescaped;
    let pem = if !pem.contains('\n') && pem.contains("\\n") {
        unescaped = pem.replace("\\r", "").replace("\\n", "\n");
        unescaped.as_str()
    } else {
        pem
    };
    let mut labels = Vec::new();
    let mut lines = pem.lines().map(str::trim);
    while let Some(line) = lines.next() {
        let Some(label) = line
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            continue;
        };
        if label != "PRIVATE KEY" {
            labels.push(label.to_string());
            continue;
        }
        let end = format!("-----END {label}-----");
        let mut body = String::new();
        let mut ended = false;
        for line in lines.by_ref() {
            if line == end {
                ended = true;
                break;
            }
            // Skip RFC 1421 headers, which unencrypted PKCS#8 does not have.
            if !line.contains(':') {
                body.push_str(line);
            }
        }
        if !ended {
            return Err(JwtError::NotPkcs8(format!(
                "the PEM block has no `{end}` line"
            )));
        }
        return STANDARD
            .decode(body.as_bytes())
            .map_err(|_| JwtError::NotPkcs8("the base64 inside the PEM block is invalid".into()))
            .and_then(|der| {
                if der.is_empty() {
                    Err(JwtError::NotPkcs8("the PEM block is empty".into()))
                } else {
                    Ok(der)
                }
            });
    }
    // No PKCS#8 block: say what was found instead.
    let Some(label) = labels
        .iter()
        .find(|l| l.contains("PRIVATE KEY"))
        .or(labels.first())
    else {
        return Err(JwtError::NotPem);
    };
    Err(JwtError::NotPkcs8(match label.as_str() {
        "EC PRIVATE KEY" => format!("it is an SEC1 `EC PRIVATE KEY`; {CONVERT}"),
        "RSA PRIVATE KEY" => format!("it is a PKCS#1 `RSA PRIVATE KEY`; {CONVERT}"),
        "ENCRYPTED PRIVATE KEY" => {
            "it is encrypted; decrypt it with `openssl pkey -in key.pem -out key.p8.pem`".into()
        }
        "OPENSSH PRIVATE KEY" => format!(
            "it is an OpenSSH key; {CONVERT} (after `ssh-keygen -p -m PKCS8 -f key` if needed)"
        ),
        other if other.contains("PRIVATE KEY") => {
            format!(
                "it is a `{}` block; {CONVERT}",
                crate::sanitize::one_line(other)
            )
        }
        other => format!(
            "it holds a `{}` block, not a private key",
            crate::sanitize::one_line(other)
        ),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{
        ECDSA_P256_SHA256_FIXED, ECDSA_P384_SHA384_FIXED_SIGNING, Ed25519KeyPair, KeyPair,
        RSA_PKCS1_2048_8192_SHA256, UnparsedPublicKey,
    };
    use serde_json::Value;

    const NOW: u64 = 1_700_000_000;

    fn pem(label: &str, der: &[u8]) -> String {
        let b64 = STANDARD.encode(der);
        let mut out = format!("-----BEGIN {label}-----\n");
        for chunk in b64.as_bytes().chunks(64) {
            out.push_str(&String::from_utf8_lossy(chunk));
            out.push('\n');
        }
        out.push_str(&format!("-----END {label}-----\n"));
        out
    }

    fn ec_key() -> (String, Vec<u8>) {
        let rng = SystemRandom::new();
        let doc =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("generate");
        let kp = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, doc.as_ref(), &rng)
            .expect("parse");
        (
            pem("PRIVATE KEY", doc.as_ref()),
            kp.public_key().as_ref().to_vec(),
        )
    }

    /// An RSA key from `openssl`, or `None` (with a note) without it.
    fn openssl_key(args: &[&str]) -> Option<String> {
        match std::process::Command::new("openssl")
            .arg("genpkey")
            .args(args)
            .output()
        {
            Ok(out) if out.status.success() => Some(String::from_utf8_lossy(&out.stdout).into()),
            Ok(out) => {
                eprintln!(
                    "note: `openssl genpkey` failed ({}): test skipped",
                    out.status
                );
                None
            }
            Err(e) => {
                eprintln!("note: no `openssl` on PATH ({e}): test skipped");
                None
            }
        }
    }

    fn parts(jwt: &str) -> (Value, Value, Vec<u8>, String) {
        let p: Vec<&str> = jwt.split('.').collect();
        assert_eq!(p.len(), 3, "{jwt}");
        let dec = |s: &str| URL_SAFE_NO_PAD.decode(s).expect("base64url");
        let header = serde_json::from_slice(&dec(p[0])).expect("header json");
        let claims = serde_json::from_slice(&dec(p[1])).expect("claims json");
        (header, claims, dec(p[2]), format!("{}.{}", p[0], p[1]))
    }

    fn check_claims(claims: &Value) {
        assert_eq!(claims["iss"], "client-1");
        assert_eq!(claims["sub"], "client-1");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(claims["iat"], NOW);
        assert_eq!(claims["exp"], NOW + 300);
        let jti = claims["jti"].as_str().expect("jti");
        assert_eq!(jti.len(), 32);
        assert!(jti.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn es256_signs_and_verifies() {
        let (pem, public) = ec_key();
        let jwt =
            client_assertion(&pem, None, "client-1", "https://as.example", NOW).expect("sign");
        let (header, claims, sig, input) = parts(&jwt);
        assert_eq!(header, serde_json::json!({"alg": "ES256", "typ": "JWT"}));
        check_claims(&claims);
        assert_eq!(sig.len(), 64);
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &public)
            .verify(input.as_bytes(), &sig)
            .expect("signature verifies");
        // The algorithm named (in any case) works too, and jti differs.
        let again = client_assertion(&pem, Some("es256"), "client-1", "https://as.example", NOW)
            .expect("sign");
        assert_ne!(parts(&again).1["jti"], claims["jti"]);
    }

    #[test]
    fn kid_goes_in_the_header() {
        let (pem, _) = ec_key();
        let jwt =
            client_assertion_with_kid(&pem, None, Some("k1"), "client-1", "a", NOW).expect("sign");
        assert_eq!(
            parts(&jwt).0,
            serde_json::json!({"alg": "ES256", "typ": "JWT", "kid": "k1"})
        );
    }

    #[test]
    fn rs256_signs_and_verifies() {
        let Some(pem) = openssl_key(&["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        else {
            return;
        };
        assert!(pem.contains("-----BEGIN PRIVATE KEY-----"));
        let jwt = client_assertion(&pem, Some("RS256"), "client-1", "https://as.example", NOW)
            .expect("sign");
        let (header, claims, sig, input) = parts(&jwt);
        assert_eq!(header, serde_json::json!({"alg": "RS256", "typ": "JWT"}));
        check_claims(&claims);
        assert_eq!(sig.len(), 256);
        let der = pem_to_der(&pem).expect("der");
        let kp = RsaKeyPair::from_pkcs8(&der).expect("rsa");
        UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, kp.public_key().as_ref())
            .verify(input.as_bytes(), &sig)
            .expect("signature verifies");
        // The algorithm from the key; and a mismatch names both.
        assert!(client_assertion(&pem, None, "c", "a", NOW).is_ok());
        let e = client_assertion(&pem, Some("ES256"), "c", "a", NOW).expect_err("mismatch");
        assert!(matches!(e, JwtError::AlgMismatch { .. }));
        let msg = e.to_string();
        assert!(msg.contains("ES256") && msg.contains("RSA"), "{msg}");
    }

    #[test]
    fn openssl_ec_keys_work() {
        let Some(pem) = openssl_key(&["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        else {
            return;
        };
        let jwt =
            client_assertion(&pem, None, "client-1", "https://as.example", NOW).expect("sign");
        let (header, claims, sig, input) = parts(&jwt);
        assert_eq!(header["alg"], "ES256");
        check_claims(&claims);
        let der = pem_to_der(&pem).expect("der");
        let kp =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
                .expect("ec");
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, kp.public_key().as_ref())
            .verify(input.as_bytes(), &sig)
            .expect("signature verifies");
    }

    #[test]
    fn alg_must_fit_the_key() {
        let (pem, _) = ec_key();
        match client_assertion(&pem, Some("RS256"), "c", "a", NOW) {
            Err(e @ JwtError::AlgMismatch { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("RS256"), "{msg}");
                assert!(msg.contains("EC P-256"), "{msg}");
                assert!(msg.contains("ES256"), "{msg}");
            }
            other => panic!("expected AlgMismatch, got {other:?}"),
        }
        assert!(matches!(
            client_assertion(&pem, Some("HS256"), "c", "a", NOW),
            Err(JwtError::UnsupportedAlg(_))
        ));
    }

    #[test]
    fn garbage_is_refused_without_showing_it() {
        assert!(matches!(
            client_assertion("not a key at all", None, "c", "a", NOW),
            Err(JwtError::NotPem)
        ));
        let bad_b64 = "-----BEGIN PRIVATE KEY-----\nSECRET!!material\n-----END PRIVATE KEY-----\n";
        let e = client_assertion(bad_b64, None, "c", "a", NOW).expect_err("bad base64");
        assert!(matches!(e, JwtError::NotPkcs8(_)));
        assert!(!e.to_string().contains("SECRET"), "{e}");
        let junk = pem("PRIVATE KEY", b"SECRETSECRETSECRET");
        let e = client_assertion(&junk, None, "c", "a", NOW).expect_err("junk der");
        assert!(matches!(e, JwtError::NotPkcs8(_)));
        let body = STANDARD.encode(b"SECRETSECRETSECRET");
        assert!(!e.to_string().contains(&body), "{e}");
        let e = client_assertion("-----BEGIN PRIVATE KEY-----\nAAAA\n", None, "c", "a", NOW)
            .expect_err("no end");
        assert!(e.to_string().contains("-----END PRIVATE KEY-----"), "{e}");
    }

    #[test]
    fn other_formats_say_how_to_convert() {
        for label in ["EC PRIVATE KEY", "RSA PRIVATE KEY"] {
            let p = pem(label, b"whatever");
            match client_assertion(&p, None, "c", "a", NOW) {
                Err(e @ JwtError::NotPkcs8(_)) => {
                    let msg = e.to_string();
                    assert!(msg.contains(label), "{msg}");
                    assert!(msg.contains("openssl pkcs8 -topk8 -nocrypt"), "{msg}");
                }
                other => panic!("expected NotPkcs8, got {other:?}"),
            }
        }
        // `openssl ecparam -genkey` writes parameters first.
        let p = format!(
            "{}{}",
            pem("EC PARAMETERS", b"p"),
            pem("EC PRIVATE KEY", b"k")
        );
        let msg = client_assertion(&p, None, "c", "a", NOW)
            .expect_err("sec1")
            .to_string();
        assert!(msg.contains("SEC1"), "{msg}");
        let msg = client_assertion(&pem("ENCRYPTED PRIVATE KEY", b"x"), None, "c", "a", NOW)
            .expect_err("encrypted")
            .to_string();
        assert!(msg.contains("encrypted"), "{msg}");
        let msg = client_assertion(&pem("PUBLIC KEY", b"x"), None, "c", "a", NOW)
            .expect_err("public")
            .to_string();
        assert!(msg.contains("not a private key"), "{msg}");
    }

    #[test]
    fn unsupported_keys_are_named() {
        let rng = SystemRandom::new();
        let p384 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P384_SHA384_FIXED_SIGNING, &rng).expect("p384");
        let e = client_assertion(&pem("PRIVATE KEY", p384.as_ref()), None, "c", "a", NOW)
            .expect_err("p384");
        assert!(matches!(e, JwtError::UnsupportedKey(_)), "{e:?}");
        assert!(e.to_string().contains("P-256"), "{e}");
        let ed = Ed25519KeyPair::generate_pkcs8(&rng).expect("ed25519");
        let e = client_assertion(&pem("PRIVATE KEY", ed.as_ref()), None, "c", "a", NOW)
            .expect_err("ed25519");
        assert!(matches!(e, JwtError::UnsupportedKey(_)), "{e:?}");
        assert!(e.to_string().contains("Ed25519"), "{e}");
    }

    #[test]
    fn pem_variants_are_read() {
        let (p, _) = ec_key();
        // CRLF line ends, indentation, text around the block.
        let crlf = format!("a comment\r\n{}", p.replace('\n', "\r\n  "));
        assert!(client_assertion(&crlf, None, "c", "a", NOW).is_ok());
        // Line breaks escaped as in JSON.
        let escaped = p.replace('\n', "\\n");
        assert!(client_assertion(&escaped, None, "c", "a", NOW).is_ok());
    }
}
