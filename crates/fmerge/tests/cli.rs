//! The command line: bad input gets a clear message and its own exit code, never a panic and
//! never a half-written output file; `fmerge size` agrees with `llc-22` + `llvm-size-22`.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// Runs fmerge and returns (exit code, stderr).
fn fails(args: &[&str], cwd: &Path) -> (i32, String) {
    let out = fmerge().args(args).current_dir(cwd).output().expect("run fmerge");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "fmerge panicked: {stderr}");
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn missing_input_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = fails(&["opt", "nope.bc", "-o", "out.bc"], dir.path());
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("nope.bc") && err.contains("no such file"), "{err}");
    assert!(!dir.path().join("out.bc").exists());
}

#[test]
fn garbage_and_truncated_bitcode_exit_4_without_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("garbage.bc"), b"this is not bitcode at all").unwrap();
    let (code, err) = fails(&["opt", "garbage.bc", "-o", "out.bc"], dir.path());
    assert_eq!(code, 4, "{err}");

    let src = programs_dir().join("no_duplicates.c");
    let full = dir.path().join("full.bc");
    compile(&src, &full, &[]);
    let bytes = std::fs::read(&full).unwrap();
    for cut in [8, bytes.len() / 3, bytes.len() / 2, bytes.len() - 5] {
        std::fs::write(dir.path().join("cut.bc"), &bytes[..cut]).unwrap();
        let (code, err) = fails(&["opt", "cut.bc", "-o", "out.bc"], dir.path());
        assert_eq!(code, 4, "cut at {cut}: {err}");
        assert!(!dir.path().join("out.bc").exists(), "output written for corrupt input");
    }
    let (code, err) = fails(&["opt", "full.bc", "--no-measure", "-q", "-o", "out.bc"], dir.path());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn ll_syntax_error_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.ll"), "define i32 @f( {\n  ret i32 0\n}\n").unwrap();
    let (code, err) = fails(&["size", "bad.ll"], dir.path());
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("bad.ll"), "{err}");
}

#[test]
fn ir_that_fails_the_verifier_exits_6_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let ir = "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  %x = add i32 1, 2\n  \
              br label %b\nb:\n  ret i32 %x\n}\n";
    std::fs::write(dir.path().join("broken.ll"), ir).unwrap();
    let (code, err) = fails(&["opt", "broken.ll", "-o", "out.bc"], dir.path());
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("dominate"), "{err}");
    assert!(!dir.path().join("out.bc").exists());
}

/// Minimal bitstream writer, enough to forge an IDENTIFICATION block.
struct Bits {
    out: Vec<u8>,
    cur: u64,
    n: u32,
}

impl Bits {
    fn fixed(&mut self, v: u64, w: u32) {
        for k in 0..w {
            self.cur |= ((v >> k) & 1) << self.n;
            self.n += 1;
            if self.n == 8 {
                self.out.push(self.cur as u8);
                self.cur = 0;
                self.n = 0;
            }
        }
    }
    fn vbr(&mut self, mut v: u64, w: u32) {
        let hi = 1 << (w - 1);
        while v >= hi {
            self.fixed((v & (hi - 1)) | hi, w);
            v >>= w - 1;
        }
        self.fixed(v, w);
    }
    fn align32(&mut self) {
        while self.n != 0 || !self.out.len().is_multiple_of(4) {
            self.fixed(0, 1);
        }
    }
}

#[test]
fn bitcode_from_a_newer_llvm_exits_5_and_names_the_producer() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Bits { out: b"BC\xC0\xDE".to_vec(), cur: 0, n: 0 };
    b.fixed(1, 2); // ENTER_SUBBLOCK
    b.vbr(13, 8); // IDENTIFICATION_BLOCK_ID
    b.vbr(5, 4); // abbreviation width inside
    b.align32();
    b.fixed(4, 32); // block length in words (not checked by the reader)
    let producer = "LLVM23.0.0git";
    b.fixed(3, 5); // UNABBREV_RECORD
    b.vbr(1, 6); // STRING
    b.vbr(producer.len() as u64, 6);
    for c in producer.bytes() {
        b.vbr(u64::from(c), 6);
    }
    b.fixed(3, 5);
    b.vbr(2, 6); // EPOCH
    b.vbr(1, 6);
    b.vbr(0, 6);
    b.fixed(0, 5); // END_BLOCK
    b.align32();
    std::fs::write(dir.path().join("new.bc"), &b.out).unwrap();
    let (code, err) = fails(&["opt", "new.bc", "-o", "out.bc"], dir.path());
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("LLVM23.0.0git"), "{err}");
}

#[test]
fn unknown_target_exits_7() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("x.bc");
    compile(&programs_dir().join("no_duplicates.c"), &bc, &[]);
    let (code, err) = fails(&["size", "x.bc", "--target", "sparc-nowhere-none"], dir.path());
    assert_eq!(code, 7, "{err}");
    assert!(err.contains("sparc-nowhere-none"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(fails(&["opt"], dir.path()).0, 2);
    assert_eq!(fails(&["frobnicate"], dir.path()).0, 2);
}

#[test]
fn empty_module_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.ll"), "").unwrap();
    let (code, err) = fails(&["opt", "empty.ll", "-o", "out.ll", "--emit", "ll", "-q"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(dir.path().join("out.ll").exists());
}

/// `.text` bytes per `llc-22 -filetype=obj` and `llvm-size-22 -A`.
fn llc_text_bytes(bc: &Path, triple: Option<&str>) -> u64 {
    let obj = bc.with_extension("o");
    let mut llc = Command::new("llc-22");
    llc.arg("-filetype=obj").arg(bc).arg("-o").arg(&obj);
    if let Some(t) = triple {
        llc.arg(format!("-mtriple={t}"));
    }
    run_ok(&mut llc);
    let out = run_ok(Command::new("llvm-size-22").arg("-A").arg(&obj));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with(".text"))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum()
}

#[test]
fn size_agrees_with_llc_and_llvm_size_on_x86_64() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["dup_templates.cpp", "dup_constants.c", "no_duplicates.c"] {
        let bc = dir.path().join(format!("{f}.bc"));
        compile(&programs_dir().join(f), &bc, &[]);
        assert_eq!(text_bytes(&bc), llc_text_bytes(&bc, None), "{f}");
    }
}

#[test]
fn size_agrees_with_llc_and_llvm_size_on_aarch64() {
    let dir = tempfile::tempdir().unwrap();
    // No target headers are needed for a freestanding file.
    let src = dir.path().join("kernel.c");
    std::fs::write(
        &src,
        "unsigned crc(const unsigned char *p, unsigned n) { unsigned c = ~0u; \
         for (unsigned i = 0; i < n; i++) { c ^= p[i]; for (int k = 0; k < 8; k++) \
         c = (c >> 1) ^ (0xEDB88320u & -(c & 1)); } return ~c; }\n\
         long dot(const long *a, const long *b, int n) { long s = 0; for (int i = 0; i < n; i++) \
         s += a[i] * b[i]; return s; }\n",
    )
    .unwrap();
    let bc = dir.path().join("kernel.bc");
    compile(&src, &bc, &["--target=aarch64-linux-gnu", "-ffreestanding"]);
    let out = run_ok(fmerge().arg("size").arg(&bc).arg("--json"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["target"].as_str().unwrap().starts_with("aarch64"));
    assert_eq!(v["text_bytes"].as_u64().unwrap(), llc_text_bytes(&bc, None));
    assert!(v["functions"]["crc"].as_u64().is_some());
}

#[test]
fn explain_shows_an_alignment_and_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("s.bc");
    compile(&programs_dir().join("dup_similar.c"), &bc, &[]);
    let out = run_ok(fmerge().arg("explain").arg(&bc).args(["--fn", "run_v1", "--with", "run_v2"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("@run_v1 and @run_v2: different"), "{text}");
    assert!(text.contains(" = ") && text.contains("aligned:"), "{text}");
    let (code, err) = fails(&["explain", "s.bc", "--fn", "run_v1", "--with", "nope"], dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no function @nope"), "{err}");
}
