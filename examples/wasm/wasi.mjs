// Runs a WASI command module (argv[2]) under Node's WASI with the rest of argv as its
// arguments and its exit code as Node's. It sees the file system: the current directory as
// `.` (relative paths) and `/` (absolute paths).
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
const wasi = new WASI({
  version: 'preview1',
  args: process.argv.slice(2),
  env: {},
  preopens: { '.': process.cwd(), '/': '/' },
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(process.argv[2]));
// Node 18 (Debian 12's) has no getImportObject; its import object is this one.
const imports = wasi.getImportObject
  ? wasi.getImportObject()
  : { wasi_snapshot_preview1: wasi.wasiImport };
const instance = await WebAssembly.instantiate(module, imports);
process.exitCode = wasi.start(instance);
