//! Outputs that are not regular files: written in place, never replaced by a renamed file
//! (run as root, `-o /dev/null` turned /dev/null into a regular file).

use fmerge_llvm::output::write_atomically;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;

/// A named pipe `name` in `dir`, and its read end, opened for reading and writing so that
/// neither this open nor a writer's blocks.
fn named_pipe(dir: &std::path::Path, name: &str) -> (std::path::PathBuf, std::fs::File) {
    let fifo = dir.join(name);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    let reader = std::fs::OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    (fifo, reader)
}

#[test]
fn a_named_pipe_is_written_in_place_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (fifo, mut reader) = named_pipe(dir.path(), "out.pipe");
    write_atomically(&fifo, b"bitcode").unwrap();
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "the pipe was replaced by a file"
    );
    let mut got = [0u8; 7];
    reader.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"bitcode");
}

#[test]
fn a_regular_file_is_still_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.bc");
    std::fs::write(&out, b"an older and longer output").unwrap();
    write_atomically(&out, b"new").unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "a temporary file was left behind");
}

#[test]
fn a_finished_temporary_file_goes_into_a_named_pipe_too() {
    let dir = tempfile::tempdir().unwrap();
    let (fifo, mut reader) = named_pipe(dir.path(), "data.pipe");
    let tmp = dir.path().join(".data.tmp");
    std::fs::write(&tmp, b"cgdata").unwrap();
    fmerge_llvm::output::put_in_place(&tmp, &fifo).unwrap();
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(!tmp.exists(), "the temporary file was left behind");
    let mut got = [0u8; 6];
    reader.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"cgdata");
}
