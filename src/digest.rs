//! Content hashes: SHA-256 in lower-case hex, the same digits `sha256sum FILE`
//! prints, so a user can tell by hand which file a result line belongs to.

use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

/// Lower-case hex of a digest.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256 of a file's content, in hex (streamed: any size).
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let r = HashingReader::new(std::fs::File::open(path)?);
    r.finish()
}

/// A reader that hashes what passes through it, so an instance is read and
/// hashed in one pass.
pub struct HashingReader<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> HashingReader<R> {
    pub fn new(inner: R) -> Self {
        HashingReader {
            inner,
            hasher: Sha256::new(),
        }
    }
    /// Reads whatever the consumer left (a parser may stop before the end of
    /// the file) and returns the hash of the whole content.
    pub fn finish(mut self) -> io::Result<String> {
        io::copy(&mut self, &mut io::sink())?;
        Ok(hex(&self.hasher.finalize()))
    }
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}
