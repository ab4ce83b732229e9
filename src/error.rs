//! Input errors: everything that makes an instance or schedule file unreadable.
//!
//! Every error names the file, the line and column where it was detected and what
//! was expected there, so a user can fix the file without reading our source.

use std::fmt;

/// Where a piece of text came from, for error messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// An unreadable input file. Displayed as `file:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    pub pos: Pos,
    pub msg: String,
}

impl InputError {
    pub fn new(file: &str, pos: Pos, msg: impl Into<String>) -> Self {
        InputError {
            file: file.to_string(),
            pos,
            msg: msg.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pos.line == 0 {
            write!(f, "{}: {}", self.file, self.msg)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.pos.line, self.pos.col, self.msg
            )
        }
    }
}

impl std::error::Error for InputError {}

pub type InputResult<T> = Result<T, InputError>;
