//! Writing results: never a half-written file. Output goes to a temporary file in the target's
//! directory and is renamed over the destination only once complete.

use crate::error::{LlvmError, Result};
use crate::module::{Module, ModuleBytes};
use crate::target::Target;
use std::io::Write;
use std::path::Path;

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    Bitcode,
    Text,
    Object,
}

/// The temporary file process `pid` writes before renaming it to `path`.
pub fn temporary_path(path: &Path, pid: u32) -> std::path::PathBuf {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir.join(format!(".{file_name}.fmerge-tmp-{pid}"))
}

/// Writes `bytes` to `path` atomically (temporary file + rename). A path that is there and is
/// not a regular file (`/dev/null`, a named pipe) is written in place: renaming a file over it
/// would put a regular file where the device or the pipe was (run as root, `-o /dev/null` made
/// /dev/null a regular file, and every later reader of /dev/null read what was written there).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |e: std::io::Error| LlvmError::Io { path: path.to_path_buf(), source: e };
    if written_in_place(path) {
        let mut f = std::fs::OpenOptions::new().write(true).open(path).map_err(io)?;
        return f.write_all(bytes).map_err(io);
    }
    let tmp = temporary_path(path, std::process::id());
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Whether `path` is there and is not a regular file (a device, a named pipe): such a path is
/// written in place, never replaced (see [`write_atomically`]).
fn written_in_place(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.file_type().is_file())
}

/// Puts the finished temporary file `tmp` (written next to `path`) at `path`: renamed over a
/// regular file or a new path, or, for anything else there (`/dev/null`, a named pipe; see
/// [`write_atomically`]), copied into it and removed.
pub fn put_in_place(tmp: &Path, path: &Path) -> Result<()> {
    let io = |e: std::io::Error| LlvmError::Io { path: path.to_path_buf(), source: e };
    if written_in_place(path) {
        let bytes = std::fs::read(tmp).map_err(io)?;
        let _ = std::fs::remove_file(tmp);
        return write_atomically(path, &bytes);
    }
    std::fs::rename(tmp, path).map_err(io)
}

/// Verifies `module` and serialises it as `emit` (bitcode while it verifies).
pub fn module_bytes(module: &Module<'_>, emit: Emit, target: &Target) -> Result<ModuleBytes> {
    if emit == Emit::Bitcode {
        let bytes = module.to_verified_bitcode()?;
        crate::module::check_bitcode(&bytes)?;
        return Ok(bytes);
    }
    module.verify()?;
    verified_module_bytes(module, emit, target)
}

/// Serialises `module`, which the caller has just verified (a whole-module verification of a
/// large program costs a noticeable share of fmerge's time: it is done once).
pub fn verified_module_bytes(
    module: &Module<'_>,
    emit: Emit,
    target: &Target,
) -> Result<ModuleBytes> {
    Ok(match emit {
        Emit::Bitcode => {
            let bytes = module.to_bitcode()?;
            crate::module::check_bitcode(&bytes)?;
            bytes
        }
        Emit::Text => module.to_text().into_bytes().into(),
        Emit::Object => target.emit_object(module)?.into(),
    })
}

/// Verifies `module` and writes it as `emit` to `path` atomically. Nothing is written unless the
/// module verifies.
pub fn write_module(module: &Module<'_>, path: &Path, emit: Emit, target: &Target) -> Result<()> {
    write_atomically(path, &module_bytes(module, emit, target)?)
}
