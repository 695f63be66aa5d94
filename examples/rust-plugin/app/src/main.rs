//! Reads numbers from the arguments (or uses a fixed list) and prints rings of several types,
//! prices and checksums: the output must not change when fmerge merges the code.

use shapes::{Ring, checksum_a, checksum_b, price_ch, price_eu, price_uk};

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let input = if args.is_empty() { vec![12, 7, 250, 3, 99, 41, 180] } else { args };
    let mut floats = Ring::<f64>::new(4);
    let mut small = Ring::<i16>::new(4);
    let mut bytes = Ring::<u8>::new(4);
    let mut wide = Ring::<u64>::new(4);
    let mut chars = Ring::<char>::new(4);
    for &v in &input {
        floats.push(v as f64 / 4.0);
        small.push((v % 30_000) as i16 - 100);
        bytes.push((v % 256) as u8);
        wide.push(v * 1_000_003);
        chars.push(char::from(b'a' + (v % 26) as u8));
    }
    println!("f64:  {}", floats.describe());
    println!("i16:  {}", small.describe());
    println!("u8:   {}", bytes.describe());
    println!("u64:  {}", wide.describe());
    println!("char: {}", chars.describe());
    for &v in &input {
        println!("{v}: eu {} uk {} ch {}", price_eu(v), price_uk(v), price_ch(v));
    }
    let text: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    println!("checksums {:08x} {:08x}", checksum_a(&text), checksum_b(&text));
}
