//! Writes a rendered program into a directory (the one part of the emitter with I/O).

use std::io;
use std::path::{Path, PathBuf};

use super::Program;

/// Writes the program's files into `dir` (created when missing) and returns their paths.
///
/// Only the files the program owns are written (`Pulumi.yaml`); every other file of the
/// directory, such as the stack settings `Pulumi.<stack>.yaml` holding config values, is left
/// as it is. A file is rewritten only when its contents differ.
pub fn write_program(dir: &Path, program: &Program) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::with_capacity(program.files.len());
    for (name, contents) in &program.files {
        let is_plain_name = Path::new(name).file_name().is_some_and(|f| f == name.as_str());
        if !is_plain_name {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("program file `{name}` is not a plain file name"),
            ));
        }
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(contents.as_bytes()) {
            std::fs::write(&path, contents)?;
        }
        written.push(path);
    }
    Ok(written)
}
