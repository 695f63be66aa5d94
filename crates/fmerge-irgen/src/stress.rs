//! Modules from `llvm-stress-22`, made mergeable: the generated function plus copies of it
//! with a few integer constants changed. They have no `main` and their memory accesses are not
//! guaranteed to be in bounds, so they are merged and verified, not executed.

use crate::rng::Rng;
use std::process::Command;

/// A module: `llvm-stress-22 -seed=SEED -size=SIZE` and `copies` perturbed copies of its
/// function.
pub fn module(llvm_stress: &str, seed: u64, size: usize, copies: usize) -> Result<String, String> {
    let out = Command::new(llvm_stress)
        .arg(format!("-seed={seed}"))
        .arg(format!("-size={size}"))
        .args(["-o", "-"])
        .output()
        .map_err(|e| format!("cannot run {llvm_stress}: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let start = text.find("\ndefine ").ok_or("no function in llvm-stress output")? + 1;
    let end = text[start..].find("\n}\n").ok_or("unterminated function")? + start + 3;
    let func = &text[start..end];
    let name_at = func.find('@').ok_or("no function name")?;
    let name_end = func[name_at..].find('(').ok_or("no parameter list")? + name_at;
    let name = &func[name_at + 1..name_end];
    let mut rng = Rng::new(seed);
    let mut s = text.clone();
    for k in 0..copies {
        let mut lines: Vec<String> = func.lines().map(str::to_string).collect();
        lines[0] = lines[0].replacen(&format!("@{name}("), &format!("@{name}_copy{k}("), 1);
        // Change up to three integer literals that are the last operand of a binary operator.
        let ops = [" = add ", " = sub ", " = mul ", " = and ", " = or ", " = xor "];
        let sites: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| ops.iter().any(|o| l.contains(o)) && !l.contains('<'))
            .filter(|(_, l)| l.rsplit(", ").next().is_some_and(|t| t.parse::<i64>().is_ok()))
            .map(|(i, _)| i)
            .collect();
        for _ in 0..rng.below(4) {
            if sites.is_empty() {
                break;
            }
            let i = sites[rng.below(sites.len())];
            let cut = lines[i].rfind(", ").unwrap();
            let v = rng.range(-100, 100);
            lines[i] = format!("{}, {v}", &lines[i][..cut]);
        }
        s.push('\n');
        s.push_str(&lines.join("\n"));
        s.push('\n');
    }
    Ok(s)
}
