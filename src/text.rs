//! A byte-level streaming lexer shared by the instance and schedule readers.
//!
//! Both formats are made of identifiers, unsigned integers and the punctuation
//! `( ) [ ] ,`, with whitespace allowed between tokens. The lexer reads through a
//! fixed buffer (no whole-file copy, no regex) and tracks line and column so that
//! every error can say exactly where the input went wrong.

use std::io::Read;
use std::time::Instant;

use crate::error::{InputError, InputResult, Pos};

const BUF_SIZE: usize = 1 << 20;

pub struct Lexer<R: Read> {
    src: R,
    buf: Box<[u8]>,
    at: usize,
    len: usize,
    eof: bool,
    line: u32,
    col: u32,
    file: String,
    /// Reading stops with a time-limit error once this passes, checked at a
    /// refill once `CHECK_BYTES` have been read since the last check (every
    /// 1 MiB buffer of a file; pipes deliver smaller chunks). Inputs under
    /// `CHECK_BYTES` are always read whole.
    deadline: Option<Instant>,
    unchecked: usize,
}

/// Bytes read between two deadline checks (at least).
const CHECK_BYTES: usize = 1 << 16;

/// How a byte is shown in an error message.
pub fn describe(b: Option<u8>) -> String {
    match b {
        None => "end of input".to_string(),
        Some(b'\n') => "end of line".to_string(),
        Some(b) if b.is_ascii_graphic() => format!("'{}'", b as char),
        Some(b) => format!("byte 0x{b:02x}"),
    }
}

impl<R: Read> Lexer<R> {
    pub fn new(src: R, file: &str) -> Self {
        Lexer {
            src,
            buf: vec![0u8; BUF_SIZE].into_boxed_slice(),
            at: 0,
            len: 0,
            eof: false,
            line: 1,
            col: 1,
            file: file.to_string(),
            deadline: None,
            unchecked: 0,
        }
    }

    /// Stops reading with `InputErrorKind::TimeLimit` once `deadline` passes.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    pub fn file(&self) -> &str {
        &self.file
    }

    pub fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    pub fn error_at(&self, pos: Pos, msg: impl Into<String>) -> InputError {
        InputError::new(&self.file, pos, msg)
    }

    pub fn error(&self, msg: impl Into<String>) -> InputError {
        self.error_at(self.pos(), msg)
    }

    fn fill(&mut self) -> InputResult<()> {
        if self.eof {
            return Ok(());
        }
        // Amortised: one clock read per CHECK_BYTES at least.
        if self.unchecked >= CHECK_BYTES
            && let Some(d) = self.deadline
        {
            self.unchecked = 0;
            if Instant::now() >= d {
                return Err(InputError::time_limit(&self.file, self.pos()));
            }
        }
        loop {
            match self.src.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    self.at = 0;
                    self.len = 0;
                    return Ok(());
                }
                Ok(n) => {
                    self.at = 0;
                    self.len = n;
                    self.unchecked += n;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.error(format!("read error: {e}"))),
            }
        }
    }

    /// The next byte, without consuming it.
    #[inline]
    pub fn peek(&mut self) -> InputResult<Option<u8>> {
        if self.at == self.len {
            self.fill()?;
            if self.at == self.len {
                return Ok(None);
            }
        }
        Ok(Some(self.buf[self.at]))
    }

    #[inline]
    fn bump(&mut self) {
        let b = self.buf[self.at];
        self.at += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
    }

    /// Skips spaces, tabs, carriage returns and line breaks.
    #[inline]
    pub fn skip_ws(&mut self) -> InputResult<()> {
        while let Some(b) = self.peek()? {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                self.bump();
            } else {
                break;
            }
        }
        Ok(())
    }

    /// The next non-whitespace byte, not consumed.
    #[inline]
    pub fn peek_token(&mut self) -> InputResult<Option<u8>> {
        self.skip_ws()?;
        self.peek()
    }

    /// Consumes `want` (after whitespace) or fails saying what `ctx` expected.
    #[inline]
    pub fn expect(&mut self, want: u8, ctx: &str) -> InputResult<()> {
        let got = self.peek_token()?;
        if got == Some(want) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(format!(
                "expected '{}' {ctx}, found {}",
                want as char,
                describe(got)
            )))
        }
    }

    /// `expect` with the context built only for the error: for the calls
    /// made once per list or entry of a large file.
    #[inline]
    pub fn expect_lazily(&mut self, want: u8, ctx: impl FnOnce() -> String) -> InputResult<()> {
        if self.peek_token()? == Some(want) {
            self.bump();
            Ok(())
        } else {
            self.expect(want, &ctx())
        }
    }

    /// Consumes `a` or `b`, returning which one came.
    #[inline]
    pub fn expect_either(&mut self, a: u8, b: u8, ctx: &str) -> InputResult<u8> {
        let got = self.peek_token()?;
        match got {
            Some(c) if c == a || c == b => {
                self.bump();
                Ok(c)
            }
            _ => Err(self.error(format!(
                "expected '{}' or '{}' {ctx}, found {}",
                a as char,
                b as char,
                describe(got)
            ))),
        }
    }

    /// An unsigned decimal integer that fits u64.
    #[inline]
    pub fn u64(&mut self, what: &str) -> InputResult<u64> {
        let got = self.peek_token()?;
        let start = self.pos();
        match got {
            Some(b) if b.is_ascii_digit() => {}
            Some(b'-') => {
                return Err(self.error(format!(
                    "expected {what} (an unsigned integer), found a negative number"
                )));
            }
            _ => {
                return Err(self.error(format!(
                    "expected {what} (an unsigned integer), found {}",
                    describe(got)
                )));
            }
        }
        let mut v: u64 = 0;
        while let Some(b) = self.peek()? {
            if !b.is_ascii_digit() {
                break;
            }
            v = match v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(b - b'0')))
            {
                Some(v) => v,
                None => {
                    return Err(self.error_at(
                        start,
                        format!("{what} does not fit in 64 bits (at most {})", u64::MAX),
                    ));
                }
            };
            self.bump();
        }
        if let Some(b) = self.peek()?
            && (b.is_ascii_alphabetic() || b == b'.' || b == b'_')
        {
            return Err(self.error(format!(
                "expected {what} (an unsigned integer), found {} inside the number",
                describe(Some(b))
            )));
        }
        Ok(v)
    }

    /// An unsigned decimal integer that fits u32.
    #[inline]
    pub fn u32(&mut self, what: &str) -> InputResult<u32> {
        let start = {
            self.skip_ws()?;
            self.pos()
        };
        let v = self.u64(what)?;
        u32::try_from(v).map_err(|_| {
            self.error_at(
                start,
                format!("{what} {v} does not fit in 32 bits (at most {})", u32::MAX),
            )
        })
    }

    /// An identifier made of ASCII letters, digits and underscores. Returns its
    /// text (truncated to 64 bytes for error messages) and where it started.
    pub fn ident(&mut self, ctx: &str) -> InputResult<(String, Pos)> {
        let got = self.peek_token()?;
        let start = self.pos();
        match got {
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {}
            _ => {
                return Err(self.error(format!("expected {ctx}, found {}", describe(got))));
            }
        }
        let mut s = String::new();
        while let Some(b) = self.peek()? {
            if !(b.is_ascii_alphanumeric() || b == b'_') {
                break;
            }
            if s.len() < 64 {
                s.push(b as char);
            }
            self.bump();
        }
        Ok((s, start))
    }

    /// Parses `[ item, item, ... ]`, calling `item` for each element.
    pub fn list(
        &mut self,
        ctx: &str,
        mut item: impl FnMut(&mut Self) -> InputResult<()>,
    ) -> InputResult<()> {
        self.expect_lazily(b'[', || format!("to open {ctx}"))?;
        if self.peek_token()? == Some(b']') {
            self.bump();
            return Ok(());
        }
        loop {
            item(self)?;
            // The common case without building the error context.
            match self.peek_token()? {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    return Ok(());
                }
                _ => {
                    self.expect_either(b',', b']', &format!("in {ctx}"))?;
                }
            }
        }
    }

    /// Parses `[a, b, ...]` with exactly `N` unsigned integers, the first ones u32
    /// as `names` says (`names[i].1` true = must fit u32).
    #[inline]
    pub fn tuple<const N: usize>(
        &mut self,
        ctx: &str,
        names: [(&str, bool); N],
    ) -> InputResult<[u64; N]> {
        self.expect_lazily(b'[', || format!("to open an entry of {ctx}"))?;
        let mut out = [0u64; N];
        for (i, (name, small)) in names.iter().enumerate() {
            if i > 0 {
                let got = self.peek_token()?;
                if got != Some(b',') {
                    return Err(self.error(format!(
                        "expected ',' then {name} in an entry of {ctx} (entries have {N} numbers), found {}",
                        describe(got)
                    )));
                }
                self.bump();
            }
            out[i] = if *small {
                u64::from(self.u32(name)?)
            } else {
                self.u64(name)?
            };
        }
        let got = self.peek_token()?;
        if got != Some(b']') {
            return Err(self.error(format!(
                "expected ']' to close an entry of {ctx} (entries have {N} numbers), found {}",
                describe(got)
            )));
        }
        self.bump();
        Ok(out)
    }

    /// Consumes one byte that the caller has peeked.
    pub fn advance(&mut self) {
        self.bump();
    }
}

/// Appends the decimal digits of `v` to `out`.
#[inline]
pub fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lx(s: &str) -> Lexer<&[u8]> {
        Lexer::new(s.as_bytes(), "t")
    }

    #[test]
    fn numbers_and_overflow() {
        let mut l = lx("  18446744073709551615 18446744073709551616");
        assert_eq!(l.u64("x").unwrap(), u64::MAX);
        let e = l.u64("size").unwrap_err();
        assert!(e.msg.contains("does not fit in 64 bits"), "{e}");
        assert_eq!(e.pos, Pos { line: 1, col: 24 });
        let mut l = lx("4294967296");
        assert!(l.u32("id").unwrap_err().msg.contains("32 bits"));
        let mut l = lx("-3");
        assert!(l.u64("id").unwrap_err().msg.contains("negative"));
        let mut l = lx("12a");
        assert!(l.u64("id").unwrap_err().msg.contains("inside the number"));
    }

    #[test]
    fn lists_track_lines() {
        let mut l = lx("[\n [1, 2],\r\n[3,4]\n]");
        let mut got = vec![];
        l.list("pairs", |l| {
            got.push(l.tuple("pairs", [("a", true), ("b", false)])?);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, vec![[1, 2], [3, 4]]);
        let mut l = lx("[[1,2],\n[3]]");
        let e = l
            .list("pairs", |l| {
                l.tuple("pairs", [("a", true), ("b", true)]).map(|_| ())
            })
            .unwrap_err();
        assert_eq!(e.pos.line, 2);
        assert!(e.msg.contains("expected ','"), "{e}");
        let mut l = lx("[");
        let e = l.list("x", |l| l.u64("n").map(|_| ())).unwrap_err();
        assert!(e.msg.contains("end of input"), "{e}");
    }
}
