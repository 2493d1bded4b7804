// Python's snapshot: where the worker fetches it (pace), and its file's format
// (withoutZeroRuns, withZeroRuns).

import { joined } from "./python-bundle.mjs";

// Python's snapshot (bundle.json `snapshot`, made by hooks/package/make_snapshot.mjs) is
// Python's memory once the rules core has answered every calculator for every system:
// restored, Python answers without starting itself or importing the core, which saves
// about half a second on a desktop and some 2 s on a phone four times slower
// (bench_calculators.py). But it is some 5.6 MB on top of the 4.1 MB Python needs, so it
// is fetched only where it arrives in about what it saves: where the WebAssembly's first
// SNAPSHOT_PACE.bytes arrive within SNAPSHOT_PACE.ms of its first byte (8 MB/s and more:
// a wired or fast wireless connection, or the browser's cache; counted as this thread
// reads them: from a local server, in bursts of up to 2 MB, up to 0.1 s apart). A phone's
// mobile network never downloads it. Where it does not arrive, comes late (the WebAssembly
// came from a cache, the snapshot comes over a slow network), is damaged or is not
// restored, Python starts without it. The service worker does not keep it (offline.py):
// offline, Python starts from the files it keeps.
export const SNAPSHOT_PACE = { bytes: 2_000_000, ms: 250 };
// How long after the WebAssembly and the standard library the snapshot's bytes are waited
// for: they come some 0.3 s after them here, and starting Python without it takes about
// 0.5 s more on a desktop, 2 s on a phone. Once they have all arrived, the snapshot is
// used, however long its inflating takes (a busy device): starting Python would take longer.
export const SNAPSHOT_WAIT_MS = 1000;

// The snapshot's memory, or null where it is not waited for: `arrived` says whether its
// bytes have all arrived (false: they will not), `inflated` gives its memory once checked
// and inflated (null: damaged), and `own` resolves once Python's own files are in. Its
// bytes are waited for until `waitMs` after those (a snapshot that comes well after them:
// they came from a cache, it comes over a slow network); once they have arrived, its
// inflating is waited for however long it takes (a busy device): starting Python instead
// would take the worker's thread longer still, and the download would be for nothing.
// Exported for the Node tests.
/**
 * @param {Promise<boolean>} arrived
 * @param {Promise<Uint8Array | null>} inflated
 * @param {Promise<unknown>} own
 * @param {number} [waitMs]
 * @returns {Promise<Uint8Array | null>}
 */
export async function snapshotInTime(arrived, inflated, own, waitMs = SNAPSHOT_WAIT_MS) {
  /** @type {Promise<false>} */
  const late = own.then(() => new Promise((resolve) => setTimeout(() => resolve(false), waitMs)));
  return (await Promise.race([arrived, late])) ? inflated : null;
}

// Whether a download is fast (see SNAPSHOT_PACE): `counted(n)` hears each chunk's size as
// it arrives; `fast` resolves as soon as it is known: true once `bytes` have arrived
// within `ms` of the first, false once `ms` have passed without. Exported for the Node tests.
export function pace({ bytes, ms } = SNAPSHOT_PACE, now = () => performance.now()) {
  /** @type {(fast: boolean) => void} */
  let settle = () => {};
  /** @type {Promise<boolean>} */
  const fast = new Promise((resolve) => (settle = resolve));
  /** @type {number | null} */
  let first = null;
  let arrived = 0;
  /** @param {number} chunk */
  const counted = (chunk) => {
    if (first === null) {
      first = now();
      setTimeout(() => settle(false), ms);
    }
    arrived += chunk;
    if (arrived >= bytes) settle(now() - first <= ms);
  };
  return { fast, counted };
}

// The snapshot's file is Python's memory without its runs of zeros (DecompressionStream
// inflates some 70 MB a second here, and 11 of the memory's 25 MB are zeros in runs): a
// little-endian u32, the memory's size, then records to the end, each a u32 count of
// zeros, a u32 length and that many bytes of the memory. withoutZeroRuns writes it
// (hooks/package/make_snapshot.mjs), withZeroRuns gives the memory back.
const SHORTEST_RUN = 64; // shorter runs of zeros cost more as a record than as bytes

/** @param {number[]} values */
const u32s = (values) => {
  const view = new DataView(new ArrayBuffer(4 * values.length));
  values.forEach((value, index) => view.setUint32(4 * index, value, true));
  return new Uint8Array(view.buffer);
};

/** @param {Uint8Array<ArrayBuffer>} memory */
export function withoutZeroRuns(memory) {
  const parts = [u32s([memory.length])];
  let zeros = 0; // the run of zeros before the bytes from `kept` on
  let kept = 0;
  let at = 0;
  while (at < memory.length) {
    if (memory[at] !== 0) {
      at++;
      continue;
    }
    let end = at;
    while (end < memory.length && memory[end] === 0) end++;
    if (end - at >= SHORTEST_RUN) {
      parts.push(u32s([zeros, at - kept]), memory.subarray(kept, at));
      zeros = end - at;
      kept = end;
    }
    at = end;
  }
  parts.push(u32s([zeros, memory.length - kept]), memory.subarray(kept));
  return joined(parts);
}

// The memory withoutZeroRuns left out the zeros of; an Error where `packed` is not whole.
/** @param {Uint8Array} packed */
export function withZeroRuns(packed) {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const memory = new Uint8Array(view.getUint32(0, true));
  let from = 4;
  let to = 0;
  while (from < packed.length) {
    to += view.getUint32(from, true);
    const length = view.getUint32(from + 4, true);
    from += 8;
    memory.set(packed.subarray(from, from + length), to);
    from += length;
    to += length;
  }
  if (from !== packed.length || to !== memory.length) throw new Error("the snapshot is not whole");
  return memory;
}
