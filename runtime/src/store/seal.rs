//! Paused runs sealed before they leave the process: encrypted and authenticated
//! (ChaCha20-Poly1305), bound to their run id, so a store never reads a conversation, and a run
//! altered in the store, or moved under another run's id, is refused rather than resumed.

use chacha20poly1305::aead::{Aead, Generate, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Nonce};
use sha2::{Digest, Sha256};

/// The length of a nonce, which leads every sealed run.
const NONCE: usize = 12;

/// The key paused runs are sealed with, and the keys they are also opened with: a key being
/// rotated in or out.
#[derive(Clone)]
pub(crate) struct Seal {
    cipher: ChaCha20Poly1305,
    accepted: Vec<ChaCha20Poly1305>,
}

impl Seal {
    /// A key of this process's own: runs it seals open only here.
    pub(crate) fn random() -> Self {
        let mut secret = [0u8; 32];
        for chunk in secret.chunks_mut(16) {
            chunk.copy_from_slice(&uuid::Uuid::new_v4().as_bytes()[..chunk.len()]);
        }
        Self::from_secret(&secret)
    }

    /// The key derived from `secret`: every process given the same secret opens the runs any
    /// of them sealed.
    pub(crate) fn from_secret(secret: &[u8]) -> Self {
        Self {
            cipher: cipher(secret),
            accepted: Vec::new(),
        }
    }

    /// This seal opening the runs sealed with `secret` too.
    pub(crate) fn accepting(mut self, secret: &[u8]) -> Self {
        self.accepted.push(cipher(secret));
        self
    }

    /// `run`, the paused run `id`, sealed: a nonce, then the ciphertext and its tag.
    pub(crate) fn seal(&self, id: &str, run: &[u8]) -> Result<Vec<u8>, String> {
        let nonce = Nonce::try_generate().map_err(|_| "no random nonce".to_owned())?;
        let sealed = self
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: run,
                    aad: id.as_bytes(),
                },
            )
            .map_err(|_| "the run could not be sealed".to_owned())?;
        let mut out = Vec::with_capacity(NONCE + sealed.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// The run `id` that `sealed` holds; `None` when it was altered, belongs to another run, or
    /// was sealed with another key.
    // A legacy run never pauses, so it never opens one.
    #[cfg_attr(feature = "legacy-spec", allow(dead_code))]
    pub(crate) fn open(&self, id: &str, sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() < NONCE {
            return None;
        }
        let (nonce, sealed) = sealed.split_at(NONCE);
        let nonce = Nonce::from(<[u8; NONCE]>::try_from(nonce).ok()?);
        std::iter::once(&self.cipher)
            .chain(&self.accepted)
            .find_map(|cipher| {
                let payload = Payload {
                    msg: sealed,
                    aad: id.as_bytes(),
                };
                cipher.decrypt(&nonce, payload).ok()
            })
    }
}

/// The cipher of the key derived from `secret`.
fn cipher(secret: &[u8]) -> ChaCha20Poly1305 {
    let mut hash = Sha256::new();
    hash.update(b"ladoga:paused-run:v1\0");
    hash.update(secret);
    ChaCha20Poly1305::new_from_slice(&hash.finalize()).expect("a 32-byte key")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_run_opens_only_unaltered_under_its_own_id_and_key() {
        let seal = Seal::from_secret(b"a shared secret of at least 32 bytes");
        let sealed = seal.seal("run-1", b"the conversation").unwrap();
        assert!(
            !sealed.windows(16).any(|w| w == b"the conversation"),
            "encrypted"
        );
        assert_eq!(
            seal.open("run-1", &sealed).as_deref(),
            Some(&b"the conversation"[..])
        );

        let same = Seal::from_secret(b"a shared secret of at least 32 bytes");
        assert!(
            same.open("run-1", &sealed).is_some(),
            "another replica, the same secret"
        );
        assert!(
            seal.open("run-2", &sealed).is_none(),
            "moved under another id"
        );
        assert!(
            Seal::random().open("run-1", &sealed).is_none(),
            "another key"
        );
        let mut altered = sealed.clone();
        let last = altered.len() - 1;
        altered[last] ^= 1;
        assert!(seal.open("run-1", &altered).is_none(), "altered");
        assert!(seal.open("run-1", b"short").is_none());
    }

    #[test]
    fn a_run_sealed_with_an_accepted_key_opens_and_new_runs_are_sealed_with_the_active_one() {
        let (old, new) = (
            b"the old shared secret, 32 bytes long".as_slice(),
            b"the new shared secret, 32 bytes long".as_slice(),
        );
        let before = Seal::from_secret(old).seal("run-1", b"kept").unwrap();
        let rotated = Seal::from_secret(new).accepting(old);
        assert_eq!(
            rotated.open("run-1", &before).as_deref(),
            Some(&b"kept"[..])
        );
        let after = rotated.seal("run-2", b"new").unwrap();
        assert!(Seal::from_secret(new).open("run-2", &after).is_some());
        assert!(Seal::from_secret(old).open("run-2", &after).is_none());
        assert!(Seal::from_secret(new).open("run-1", &before).is_none());
    }
}
