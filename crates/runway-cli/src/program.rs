//! Writes a rendered Pulumi program into a directory (`pulumi-program` renders it as text; the
//! writing is the CLI's).

use std::io;
use std::path::{Path, PathBuf};

use pulumi_program::Program;

/// Writes the program's files into `dir` (created when missing) and returns their paths.
///
/// Only the files the program owns are written (`Pulumi.yaml`); every other file of the
/// directory, such as the stack settings `Pulumi.<stack>.yaml` holding config values, is left
/// as it is. A file is rewritten only when its contents differ.
pub(crate) fn write_program(dir: &Path, program: &Program) -> io::Result<Vec<PathBuf>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::scratch;

    #[test]
    fn write_program_overwrites_only_its_own_files() {
        let dir = scratch("pulumi-write");
        std::fs::write(dir.join("Pulumi.production.yaml"), "config: {}\n").expect("stack file");
        std::fs::write(dir.join("Pulumi.yaml"), "old").expect("old program");
        let program = Program { files: vec![("Pulumi.yaml".to_owned(), "name: acme-shop\n".to_owned())] };
        let written = write_program(&dir, &program).expect("write");
        assert_eq!(written, vec![dir.join("Pulumi.yaml")]);
        assert_eq!(
            std::fs::read_to_string(dir.join("Pulumi.production.yaml")).expect("kept"),
            "config: {}\n"
        );
        assert_eq!(std::fs::read_to_string(dir.join("Pulumi.yaml")).expect("program"), program.files[0].1);
    }

    #[test]
    fn write_program_refuses_a_name_that_is_not_a_plain_file_name() {
        let dir = scratch("pulumi-write-plain");
        let program = Program { files: vec![("../Pulumi.yaml".to_owned(), "name: x\n".to_owned())] };
        let error = write_program(&dir, &program).expect_err("not a plain name");
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }
}
