// fmerge benchmark corpus: deterministic workload for LevelDB (+ Snappy),
// built from the sources bundled in the leveldb-sys crate.
//
//   leveldb_host DIR     run the workload with databases under DIR
//
// Only logical results are printed (counts, checksums of scanned contents,
// status strings); LevelDB's background compaction thread makes the file
// layout timing dependent, so no file/level statistics are printed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "leveldb/cache.h"
#include "leveldb/comparator.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/write_batch.h"
#include "snappy.h"

namespace {

uint64_t g_rng = 88172645463325252ULL;
uint64_t Rand() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

struct Fnv {
  uint64_t h = 1469598103934665603ULL;
  void Add(const leveldb::Slice& s) {
    for (size_t i = 0; i < s.size(); i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  }
};

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%08llu", (unsigned long long)i);
  return buf;
}

std::string Value(uint64_t i, int gen) {
  std::string v;
  static const char* words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"};
  int n = 5 + (int)((i * 7 + gen) % 40);
  for (int k = 0; k < n; k++) {
    v += words[(i + k * gen) % 6];
    v += (char)('0' + (k % 10));
  }
  return v;
}

int failures = 0;
void Check(const leveldb::Status& s, const char* what) {
  if (!s.ok()) {
    std::printf("FAIL %s: %s\n", what, s.ToString().c_str());
    failures++;
  }
}

// A comparator that orders keys by their reversed byte string.
class ReverseComparator : public leveldb::Comparator {
 public:
  int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override {
    std::string ra(a.data(), a.size()), rb(b.data(), b.size());
    std::reverse(ra.begin(), ra.end());
    std::reverse(rb.begin(), rb.end());
    return leveldb::Slice(ra).compare(leveldb::Slice(rb));
  }
  const char* Name() const override { return "fmerge.ReverseComparator"; }
  void FindShortestSeparator(std::string*, const leveldb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

template <typename Map>
void ScanAndCompare(leveldb::DB* db, const Map& model, const char* label,
                    const leveldb::Snapshot* snap = nullptr) {
  leveldb::ReadOptions ro;
  ro.snapshot = snap;
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ro));
  Fnv f;
  size_t n = 0;
  auto m = model.begin();
  bool match = true;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    f.Add(it->key());
    f.Add(it->value());
    if (m == model.end() || m->first != it->key().ToString() ||
        m->second != it->value().ToString())
      match = false;
    if (m != model.end()) ++m;
  }
  Check(it->status(), label);
  if (m != model.end()) match = false;
  size_t back = 0;
  for (it->SeekToLast(); it->Valid(); it->Prev()) back++;
  std::printf("%s: %zu entries (%zu backwards) fnv=%016llx %s\n", label, n, back,
              (unsigned long long)f.h, match ? "matches model" : "MISMATCH");
  if (!match || back != n) failures++;
}

void MainWorkload(const std::string& dir) {
  leveldb::Options opt;
  opt.create_if_missing = true;
  opt.error_if_exists = true;
  opt.write_buffer_size = 64 * 1024;  // many memtable flushes and compactions
  opt.max_file_size = 128 * 1024;
  opt.block_size = 1024;
  opt.compression = leveldb::kSnappyCompression;
  std::unique_ptr<const leveldb::FilterPolicy> bloom(leveldb::NewBloomFilterPolicy(10));
  std::unique_ptr<leveldb::Cache> cache(leveldb::NewLRUCache(256 * 1024));
  opt.filter_policy = bloom.get();
  opt.block_cache = cache.get();
  std::string path = dir + "/main";
  leveldb::DB* raw = nullptr;
  Check(leveldb::DB::Open(opt, path, &raw), "open");
  if (!raw) return;
  std::unique_ptr<leveldb::DB> db(raw);
  std::map<std::string, std::string> model;

  const int N = 20000;
  for (int i = 0; i < N; i++) {
    uint64_t k = Rand() % (N * 2);
    std::string key = Key(k), val = Value(k, 1);
    Check(db->Put(leveldb::WriteOptions(), key, val), "put");
    model[key] = val;
  }
  ScanAndCompare(db.get(), model, "after puts");

  const leveldb::Snapshot* snap = db->GetSnapshot();
  std::map<std::string, std::string> snap_model = model;

  for (int b = 0; b < 200; b++) {
    leveldb::WriteBatch batch;
    for (int j = 0; j < 50; j++) {
      uint64_t k = Rand() % (N * 2);
      if (Rand() % 3 == 0) {
        batch.Delete(Key(k));
        model.erase(Key(k));
      } else {
        batch.Put(Key(k), Value(k, 2 + b));
        model[Key(k)] = Value(k, 2 + b);
      }
    }
    Check(db->Write(leveldb::WriteOptions(), &batch), "batch");
  }
  ScanAndCompare(db.get(), model, "after batches");
  ScanAndCompare(db.get(), snap_model, "snapshot view", snap);
  db->ReleaseSnapshot(snap);

  size_t found = 0, missing = 0, wrong = 0;
  for (int i = 0; i < 5000; i++) {
    std::string key = Key(Rand() % (N * 2)), v;
    leveldb::Status s = db->Get(leveldb::ReadOptions(), key, &v);
    auto m = model.find(key);
    if (s.ok()) {
      found++;
      if (m == model.end() || m->second != v) wrong++;
    } else if (s.IsNotFound()) {
      missing++;
      if (m != model.end()) wrong++;
    } else {
      Check(s, "get");
    }
  }
  std::printf("gets: %zu found, %zu missing, %zu wrong\n", found, missing, wrong);
  if (wrong) failures++;

  {
    std::unique_ptr<leveldb::Iterator> it(db->NewIterator(leveldb::ReadOptions()));
    size_t n = 0;
    for (it->Seek("key00010000"); it->Valid() && it->key().ToString() < "key00012000"; it->Next())
      n++;
    std::printf("range [key00010000,key00012000): %zu keys\n", n);
  }

  db->CompactRange(nullptr, nullptr);
  ScanAndCompare(db.get(), model, "after full compaction");
  db.reset();

  // reopen (recovers from the log and manifest)
  opt.error_if_exists = false;
  Check(leveldb::DB::Open(opt, path, &raw), "reopen");
  if (!raw) return;
  db.reset(raw);
  ScanAndCompare(db.get(), model, "after reopen");
  for (int i = 0; i < N * 2; i += 3) {
    Check(db->Delete(leveldb::WriteOptions(), Key(i)), "delete");
    model.erase(Key(i));
  }
  ScanAndCompare(db.get(), model, "after deletes");
  db.reset();
  Check(leveldb::RepairDB(path, opt), "repair");
  Check(leveldb::DB::Open(opt, path, &raw), "open after repair");
  if (!raw) return;
  db.reset(raw);
  ScanAndCompare(db.get(), model, "after repair");
  db.reset();
  Check(leveldb::DestroyDB(path, opt), "destroy");
}

void ComparatorWorkload(const std::string& dir) {
  ReverseComparator cmp;
  leveldb::Options opt;
  opt.create_if_missing = true;
  opt.comparator = &cmp;
  opt.compression = leveldb::kNoCompression;
  opt.write_buffer_size = 32 * 1024;
  std::string path = dir + "/reverse";
  leveldb::DB* raw = nullptr;
  Check(leveldb::DB::Open(opt, path, &raw), "open reverse");
  if (!raw) return;
  std::unique_ptr<leveldb::DB> db(raw);
  for (int i = 0; i < 3000; i++) Check(db->Put(leveldb::WriteOptions(), Key(i * 13 % 3001), Value(i, 9)), "put");
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(leveldb::ReadOptions()));
  Fnv f;
  std::string first, last;
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    if (n == 0) first = it->key().ToString();
    last = it->key().ToString();
    f.Add(it->key());
  }
  std::printf("reverse comparator: %zu keys first=%s last=%s fnv=%016llx\n", n, first.c_str(),
              last.c_str(), (unsigned long long)f.h);
  it.reset();
  db.reset();
  Check(leveldb::DestroyDB(path, opt), "destroy reverse");
}

void SnappyWorkload() {
  std::vector<std::string> inputs;
  std::string text;
  for (int i = 0; i < 20000; i++) text += Value(i % 97, i % 5) + "\n";
  inputs.push_back(text);
  std::string noise;
  for (int i = 0; i < 100000; i++) noise += (char)(Rand() & 0xff);
  inputs.push_back(noise);
  inputs.push_back(std::string(70000, 'x'));
  for (size_t i = 0; i < inputs.size(); i++) {
    std::string c, d;
    snappy::Compress(inputs[i].data(), inputs[i].size(), &c);
    bool ok = snappy::IsValidCompressedBuffer(c.data(), c.size()) &&
              snappy::Uncompress(c.data(), c.size(), &d) && d == inputs[i];
    Fnv f;
    f.Add(c);
    std::printf("snappy input %zu: %zu -> %zu bytes fnv=%016llx %s\n", i, inputs[i].size(),
                c.size(), (unsigned long long)f.h, ok ? "round trip ok" : "ROUND TRIP FAILED");
    if (!ok) failures++;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::printf("leveldb %d.%d\n", leveldb::kMajorVersion, leveldb::kMinorVersion);
  leveldb::Env::Default()->CreateDir(argv[1]);  // may already exist
  SnappyWorkload();
  MainWorkload(argv[1]);
  ComparatorWorkload(argv[1]);
  std::printf("%s\n", failures ? "FAILURES" : "all checks ok");
  return failures != 0;
}
