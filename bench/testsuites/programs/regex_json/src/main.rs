use std::collections::{BTreeMap, HashMap};
fn main() {
    let re = regex::Regex::new(r"(\w+)@(\w+)\.com").unwrap();
    let text = "alice@example.com bob@test.com carol@foo.com";
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in re.captures_iter(text) { m.entry(c[2].to_string()).or_default().push(c[1].to_string()); }
    let mut h: HashMap<u32, f64> = HashMap::new();
    for i in 0..100u32 { h.insert(i, (i as f64).sqrt()); }
    let v = serde_json::json!({"domains": m, "sum": h.values().sum::<f64>().round()});
    println!("{}", v);
}
