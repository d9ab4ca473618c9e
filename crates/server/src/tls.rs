//! HTTPS setup: the certificate (PEM files, or a self-signed one made at start), the one
//! `rustls::ServerConfig` every worker's connections share, and the certificate's fingerprint.
//!
//! rustls runs on ring (as the load engine's client does), so the server needs no second crypto
//! library; rcgen makes the self-signed certificate with ring too.

use crate::ServerError;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the server's certificate comes from (`ServerConfig::tls`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tls {
    /// A PEM certificate chain (leaf first) and a PEM private key (PKCS#8, PKCS#1 or SEC1).
    Files { cert: PathBuf, key: PathBuf },
    /// A certificate for `localhost`, `127.0.0.1` and `::1`, made and signed by itself at start
    /// (a new key every start: clients pin the fingerprint or skip verification).
    SelfSigned,
}

/// What `start` keeps of the TLS setup.
pub(crate) struct Setup {
    pub config: Arc<rustls::ServerConfig>,
    /// The certificate served (the chain's first).
    pub leaf: CertificateDer<'static>,
}

/// Loads or makes the certificate and builds the shared rustls configuration.
pub(crate) fn setup(tls: &Tls) -> Result<Setup, ServerError> {
    let (chain, key) = match tls {
        Tls::Files { cert, key } => (read_chain(cert)?, read_key(key)?),
        Tls::SelfSigned => self_signed()?,
    };
    let leaf = chain[0].clone();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .with_no_client_auth();
    let mut config = builder
        .with_single_cert(chain, key)
        .map_err(|e| match tls {
            // The key is what fails to fit (a key of another certificate, an unsupported kind).
            Tls::Files { cert, key } => ServerError::TlsFile {
                path: key.clone(),
                reason: format!("not usable with the certificate {}: {e}", cert.display()),
            },
            Tls::SelfSigned => ServerError::SelfSigned(e.to_string()),
        })?;
    config.alpn_protocols = crate::conn::ALPN.iter().map(|p| p.to_vec()).collect();
    Ok(Setup {
        config: Arc::new(config),
        leaf,
    })
}

/// The SHA-256 of a certificate's DER as uppercase hex pairs joined by ':' (as `openssl x509
/// -fingerprint -sha256` prints it, so the two can be compared by eye).
pub(crate) fn fingerprint(cert: &CertificateDer<'_>) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, cert.as_ref());
    let hex: Vec<String> = digest.as_ref().iter().map(|b| format!("{b:02X}")).collect();
    hex.join(":")
}

fn read(path: &Path) -> Result<Vec<u8>, ServerError> {
    std::fs::read(path).map_err(|e| ServerError::TlsFile {
        path: path.to_path_buf(),
        reason: format!("cannot read it: {e}"),
    })
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, ServerError> {
    let pem = read(path)?;
    let bad = |reason: String| ServerError::TlsFile {
        path: path.to_path_buf(),
        reason,
    };
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("not a PEM certificate: {e}")))?;
    if chain.is_empty() {
        return Err(bad("no PEM certificate in it".into()));
    }
    Ok(chain)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, ServerError> {
    let pem = read(path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|e| ServerError::TlsFile {
        path: path.to_path_buf(),
        reason: format!("no PEM private key (PKCS#8, PKCS#1 or SEC1) in it: {e}"),
    })
}

type Pair = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

fn self_signed() -> Result<Pair, ServerError> {
    let names = ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec();
    let made = rcgen::generate_simple_self_signed(names)
        .map_err(|e| ServerError::SelfSigned(e.to_string()))?;
    let key = PrivatePkcs8KeyDer::from(made.key_pair.serialize_der());
    Ok((vec![made.cert.der().clone()], key.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_uppercase_hex_pairs() {
        // SHA-256 of the empty input.
        let f = fingerprint(&CertificateDer::from(Vec::new()));
        assert_eq!(&f[..11], "E3:B0:C4:42");
        assert_eq!(f.len(), 32 * 3 - 1);
        assert!(f.ends_with(":B8:55"), "{f}");
    }

    #[test]
    fn self_signed_setup_offers_h2_and_http11() {
        let s = setup(&Tls::SelfSigned).unwrap();
        assert_eq!(
            s.config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        assert_eq!(fingerprint(&s.leaf).len(), 95);
    }
}
