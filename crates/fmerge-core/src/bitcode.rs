//! Reads the producer string of an LLVM bitcode file without LLVM.
//!
//! Bitcode is only backward compatible: LLVM 22 cannot reliably read what LLVM 23 wrote, and
//! when it fails its message ("Invalid record", "Unknown attribute kind") says nothing about
//! versions. So before handing a file to LLVM, fmerge reads the IDENTIFICATION block that every
//! LLVM since 3.8 writes first (record STRING = "LLVM22.1.8", "LLVM22.1.2-rust-1.95.0-stable",
//! record EPOCH = 0) and reports a newer producer clearly.
//!
//! The reader implements just enough of the bitstream container: abbreviation ids, block entry
//! and skipping, DEFINE_ABBREV and abbreviated/unabbreviated records.

use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum BitcodeError {
    #[error("not LLVM bitcode (bad magic number)")]
    BadMagic,
    #[error("truncated or corrupt bitcode: {0}")]
    Corrupt(&'static str),
}

/// What the IDENTIFICATION block says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    /// The producer string, e.g. `LLVM22.1.8`.
    pub name: String,
    /// The bitcode epoch (0 for every LLVM since 4.0).
    pub epoch: Option<u64>,
}

impl Producer {
    /// Major LLVM version from a producer of the form `LLVM<major>.<minor>...`.
    pub fn llvm_major(&self) -> Option<u32> {
        let rest = self.name.strip_prefix("LLVM")?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().ok()
    }
}

/// True if `data` starts like a bitcode file (raw or wrapped).
pub fn looks_like_bitcode(data: &[u8]) -> bool {
    data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// Reads the producer of the first module in `data`. `Ok(None)` if the file has no
/// IDENTIFICATION block (bitcode older than LLVM 3.8).
pub fn read_producer(data: &[u8]) -> Result<Option<Producer>, BitcodeError> {
    let body = strip_wrapper(data)?;
    if !body.starts_with(b"BC\xC0\xDE") {
        return Err(BitcodeError::BadMagic);
    }
    let mut r = BitReader::new(&body[4..]);
    while !r.at_end() {
        let id = r.fixed(2)?;
        match id {
            ENTER_SUBBLOCK => {
                let block_id = r.vbr(8)?;
                let abbrev_width = r.vbr(4)? as u32;
                r.align32()?;
                let words = r.fixed(32)? as usize;
                if block_id == IDENTIFICATION_BLOCK_ID {
                    return read_identification(&mut r, abbrev_width).map(Some);
                }
                r.skip_bits(words * 32)?;
            }
            // Top-level padding after a block ends the stream in practice.
            0 => break,
            _ => return Err(BitcodeError::Corrupt("unexpected top-level record")),
        }
    }
    Ok(None)
}

const END_BLOCK: u64 = 0;
const ENTER_SUBBLOCK: u64 = 1;
const DEFINE_ABBREV: u64 = 2;
const UNABBREV_RECORD: u64 = 3;
const IDENTIFICATION_BLOCK_ID: u64 = 13;
const IDENTIFICATION_CODE_STRING: u64 = 1;
const IDENTIFICATION_CODE_EPOCH: u64 = 2;

fn strip_wrapper(data: &[u8]) -> Result<&[u8], BitcodeError> {
    if !data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Ok(data);
    }
    let word = |k: usize| -> Result<usize, BitcodeError> {
        let b = data.get(k * 4..k * 4 + 4).ok_or(BitcodeError::Corrupt("short wrapper header"))?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    };
    let (offset, size) = (word(2)?, word(3)?);
    data.get(offset..offset.saturating_add(size))
        .ok_or(BitcodeError::Corrupt("wrapper points outside the file"))
}

#[derive(Clone, Debug)]
enum AbbrevOp {
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
    Blob,
}

fn read_identification(r: &mut BitReader, width: u32) -> Result<Producer, BitcodeError> {
    let mut abbrevs: Vec<Vec<AbbrevOp>> = Vec::new();
    let mut producer = Producer { name: String::new(), epoch: None };
    loop {
        let id = r.fixed(width)?;
        match id {
            END_BLOCK => return Ok(producer),
            ENTER_SUBBLOCK => return Err(BitcodeError::Corrupt("nested block in IDENTIFICATION")),
            DEFINE_ABBREV => abbrevs.push(read_abbrev(r)?),
            UNABBREV_RECORD => {
                let code = r.vbr(6)?;
                let n = r.vbr(6)?;
                let mut ops = Vec::new();
                for _ in 0..n.min(4096) {
                    ops.push(r.vbr(6)?);
                }
                apply_record(&mut producer, code, &ops);
            }
            _ => {
                let abbrev = abbrevs
                    .get((id - 4) as usize)
                    .ok_or(BitcodeError::Corrupt("unknown abbreviation"))?
                    .clone();
                let fields = read_abbreviated(r, &abbrev)?;
                if let Some((&code, ops)) = fields.split_first() {
                    apply_record(&mut producer, code, ops);
                }
            }
        }
    }
}

fn apply_record(p: &mut Producer, code: u64, ops: &[u64]) {
    match code {
        IDENTIFICATION_CODE_STRING => {
            p.name = ops.iter().map(|&c| char::from(c as u8)).collect();
        }
        IDENTIFICATION_CODE_EPOCH => p.epoch = ops.first().copied(),
        _ => {}
    }
}

fn read_abbrev(r: &mut BitReader) -> Result<Vec<AbbrevOp>, BitcodeError> {
    let n = r.vbr(5)?;
    let mut ops = Vec::new();
    let mut k = 0;
    while k < n {
        let literal = r.fixed(1)? == 1;
        if literal {
            ops.push(AbbrevOp::Literal(r.vbr(8)?));
        } else {
            ops.push(match r.fixed(3)? {
                1 => AbbrevOp::Fixed(r.vbr(5)? as u32),
                2 => AbbrevOp::Vbr(r.vbr(5)? as u32),
                3 => AbbrevOp::Array,
                4 => AbbrevOp::Char6,
                5 => AbbrevOp::Blob,
                _ => return Err(BitcodeError::Corrupt("bad abbreviation encoding")),
            });
        }
        k += 1;
    }
    Ok(ops)
}

fn read_scalar(r: &mut BitReader, op: &AbbrevOp) -> Result<u64, BitcodeError> {
    match *op {
        AbbrevOp::Literal(v) => Ok(v),
        AbbrevOp::Fixed(w) => r.fixed(w),
        AbbrevOp::Vbr(w) => r.vbr(w),
        AbbrevOp::Char6 => {
            let v = r.fixed(6)?;
            Ok(u64::from(
                b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"[v as usize],
            ))
        }
        AbbrevOp::Array | AbbrevOp::Blob => Err(BitcodeError::Corrupt("nested array/blob")),
    }
}

fn read_abbreviated(r: &mut BitReader, abbrev: &[AbbrevOp]) -> Result<Vec<u64>, BitcodeError> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < abbrev.len() {
        match &abbrev[k] {
            AbbrevOp::Array => {
                let elt =
                    abbrev.get(k + 1).ok_or(BitcodeError::Corrupt("array without element"))?;
                let n = r.vbr(6)?;
                for _ in 0..n.min(1 << 16) {
                    out.push(read_scalar(r, elt)?);
                }
                k += 2;
            }
            AbbrevOp::Blob => {
                let n = r.vbr(6)? as usize;
                r.align32()?;
                for _ in 0..n.min(1 << 16) {
                    out.push(r.fixed(8)?);
                }
                r.align32()?;
                k += 1;
            }
            op => {
                out.push(read_scalar(r, op)?);
                k += 1;
            }
        }
    }
    Ok(out)
}

/// Little-endian bit reader over 32-bit words, as the bitstream format defines it.
struct BitReader<'a> {
    data: &'a [u8],
    bit: usize,
}

impl<'a> BitReader<'a> {
    fn new(data: &'a [u8]) -> Self {
        BitReader { data, bit: 0 }
    }

    fn at_end(&self) -> bool {
        self.bit + 32 > self.data.len() * 8
    }

    fn fixed(&mut self, width: u32) -> Result<u64, BitcodeError> {
        if width > 64 {
            return Err(BitcodeError::Corrupt("field wider than 64 bits"));
        }
        let mut v = 0u64;
        for k in 0..width {
            let byte = *self
                .data
                .get(self.bit / 8)
                .ok_or(BitcodeError::Corrupt("unexpected end of file"))?;
            let b = (byte >> (self.bit % 8)) & 1;
            v |= u64::from(b) << k;
            self.bit += 1;
        }
        Ok(v)
    }

    fn vbr(&mut self, width: u32) -> Result<u64, BitcodeError> {
        if !(2..=32).contains(&width) {
            return Err(BitcodeError::Corrupt("bad VBR width"));
        }
        let hi = 1u64 << (width - 1);
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let chunk = self.fixed(width)?;
            if shift >= 64 {
                return Err(BitcodeError::Corrupt("VBR value too long"));
            }
            v |= (chunk & (hi - 1)) << shift;
            if chunk & hi == 0 {
                return Ok(v);
            }
            shift += width - 1;
        }
    }

    fn align32(&mut self) -> Result<(), BitcodeError> {
        self.bit = self.bit.div_ceil(32) * 32;
        if self.bit > self.data.len() * 8 {
            return Err(BitcodeError::Corrupt("unexpected end of file"));
        }
        Ok(())
    }

    fn skip_bits(&mut self, n: usize) -> Result<(), BitcodeError> {
        self.bit = self.bit.checked_add(n).ok_or(BitcodeError::Corrupt("block too long"))?;
        if self.bit > self.data.len() * 8 {
            return Err(BitcodeError::Corrupt("block runs past the end of the file"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_bitcode() {
        assert_eq!(read_producer(b"hello world").unwrap_err(), BitcodeError::BadMagic);
        assert!(!looks_like_bitcode(b"; ModuleID = 'x'"));
    }

    #[test]
    fn parses_llvm_major() {
        let p = |s: &str| Producer { name: s.into(), epoch: Some(0) }.llvm_major();
        assert_eq!(p("LLVM22.1.8"), Some(22));
        assert_eq!(p("LLVM22.1.2-rust-1.95.0-stable"), Some(22));
        assert_eq!(p("LLVM23.0.0git"), Some(23));
        assert_eq!(p("APPLE_1_1500"), None);
    }

    #[test]
    fn truncated_input_is_an_error_not_a_panic() {
        let mut data = b"BC\xC0\xDE".to_vec();
        data.extend_from_slice(&[0x35, 0x14, 0, 0, 5, 0, 0]);
        assert!(read_producer(&data).is_err() || read_producer(&data) == Ok(None));
    }
}
