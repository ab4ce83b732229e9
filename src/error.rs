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

/// What kind of input failure: the text itself, or the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputErrorKind {
    /// The text is not what the format expects, or the file cannot be read.
    Invalid,
    /// The deadline passed while the input was being read (`tmin solve
    /// --time-limit` covers reading): no verdict, not a bad file.
    TimeLimit,
}

/// An unreadable input file. Displayed as `file:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    pub pos: Pos,
    pub msg: String,
    pub kind: InputErrorKind,
}

impl InputError {
    pub fn new(file: &str, pos: Pos, msg: impl Into<String>) -> Self {
        InputError {
            file: file.to_string(),
            pos,
            msg: msg.into(),
            kind: InputErrorKind::Invalid,
        }
    }
    /// The deadline passed at `pos` while reading `file`.
    pub fn time_limit(file: &str, pos: Pos) -> Self {
        InputError {
            file: file.to_string(),
            pos,
            msg: format!(
                "time limit reached while reading the input (line {})",
                pos.line
            ),
            kind: InputErrorKind::TimeLimit,
        }
    }
}

/// Opens an input file, or says why not like every other input error
/// (`file: is a directory`, `file: No such file or directory`): no OS error
/// from a read later, no position that means nothing.
pub fn open_file(path: &std::path::Path) -> InputResult<std::fs::File> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(InputError::new(
            &name,
            Pos::default(),
            "is a directory, not a file",
        ));
    }
    std::fs::File::open(path).map_err(|e| InputError::new(&name, Pos::default(), e.to_string()))
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
