/**
 * Per-board index of the live sessions of a processor board by share and creation time, refreshed
 * from the board's session table by incremental scans: what the emulator's HA data model
 * (ha-board.ts) asks when a share moves (what the old owner holds, what is missing at the new one).
 */
import type { ProcessorBoard } from '../../board/processor/processor-board.ts';
import { newSessionRecord } from '../../board/processor/session-record.ts';
import type { SessionRecord } from '../../board/processor/session-record.ts';
import { SessionState } from '../../board/processor/tcp-state.ts';

/** A window ending this long before the last scan needs no new scan (the pump's lag is far below it), ms. */
const SCAN_SLACK_MS = 200;
/** How far back a scan looks for sessions that appeared late, ms. */
const LOOKBACK_MS = 5000;
/** Ended sessions are looked for at most this often, ms. */
const END_CHECK_MS = 1000;

/** A session in a board's index. */
export interface Item {
  e: number;
  created: number;
  hash: number;
  key: string | null;
  sent: boolean;
}

/** True for a session state that still carries traffic (not TIME_WAIT or CLOSE). */
export function isOpen(state: number): boolean {
  return state !== SessionState.TIME_WAIT && state !== SessionState.CLOSE && state !== SessionState.FREE;
}

/**
 * Per-board index of live sessions by share and creation time, refreshed from the board's table.
 */
export class BoardIndex {
  private readonly byShare = new Map<string, Item[]>();
  private readonly byEntry = new Map<number, Item & { share: string }>();
  private scanT = -Infinity;
  private insertedAtScan = -1;
  private dirty = true;
  private lastEndCheck = new Map<string, number>();
  private readonly rec = newSessionRecord();

  constructor(
    readonly board: ProcessorBoard,
    private readonly classify: (rec: SessionRecord) => string | null,
    private readonly now: () => number,
  ) {}

  /** Something was imported into (or cleared from) the live table: rebuild on next use. */
  invalidate(): void {
    this.dirty = true;
  }

  valid(it: Item): boolean {
    const t = this.board.table;
    return t.stateOf(it.e) !== 0 && t.hashOf(it.e) === it.hash && t.createdOf(it.e) === it.created;
  }

  private items(share: string): Item[] {
    let a = this.byShare.get(share);
    if (!a) this.byShare.set(share, (a = []));
    return a;
  }

  /**
   * Makes sure every session created up to `upTo` is indexed. A session appears in the table when
   * its first packet is delivered, which may lag its creation time a little (the traffic pump):
   * a scan is skipped only when nothing was inserted since the last one, or when the window ends
   * well before it; each scan looks back LOOKBACK_MS (entries already indexed are skipped).
   */
  ensure(upTo: number): void {
    if (this.dirty) {
      this.rebuild();
      return;
    }
    if (this.board.table.inserted === this.insertedAtScan) return;
    if (upTo < this.scanT - SCAN_SLACK_MS) return;
    this.scan(this.scanT - LOOKBACK_MS);
  }

  private rebuild(): void {
    this.byShare.clear();
    this.byEntry.clear();
    this.dirty = false;
    this.scan(-Infinity);
  }

  private scan(from: number): void {
    const t = this.board.table;
    const fresh: Array<Item & { share: string }> = [];
    t.forEach((e) => {
      const created = t.createdOf(e);
      if (created < from) return;
      const hash = t.hashOf(e);
      const old = this.byEntry.get(e);
      if (old && old.created === created && old.hash === hash) return;
      t.readRecord(e, this.rec);
      const share = this.classify(this.rec);
      if (share === null) return;
      const it = { e, created, hash, key: null, sent: false, share };
      this.byEntry.set(e, it);
      fresh.push(it);
    });
    this.scanT = this.now();
    this.insertedAtScan = t.inserted;
    if (fresh.length === 0) return;
    fresh.sort((a, b) => a.created - b.created || a.e - b.e);
    const touched = new Set<string>();
    for (const it of fresh) {
      this.items(it.share).push(it);
      touched.add(it.share);
    }
    for (const s of touched) {
      const a = this.items(s);
      // Appends are in order unless an older session appeared (rebuild covers imports): keep sorted.
      for (let i = 1; i < a.length; i++) {
        if (a[i - 1]!.created > a[i]!.created) {
          a.sort((x, y) => x.created - y.created || x.e - y.e);
          break;
        }
      }
    }
  }

  /** Valid items of `share` created in (after, upTo], oldest first. */
  *between(share: string, after: number, upTo: number): Generator<Item> {
    this.ensure(upTo);
    const a = this.items(share);
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid]!.created > after) hi = mid;
      else lo = mid + 1;
    }
    for (let i = lo; i < a.length; i++) {
      const it = a[i]!;
      if (it.created > upTo) break;
      if (this.valid(it)) yield it;
    }
  }

  /** Sessions of `share` that were sent and have ended since the last check (at most every END_CHECK_MS). */
  drainEnded(share: string): Array<{ key: string; createdAt: number; sessions: number }> {
    const now = this.now();
    if (now - (this.lastEndCheck.get(share) ?? -Infinity) < END_CHECK_MS) return [];
    this.lastEndCheck.set(share, now);
    const a = this.items(share);
    const out: Array<{ key: string; createdAt: number; sessions: number }> = [];
    const keep: Item[] = [];
    for (const it of a) {
      if (this.valid(it)) {
        keep.push(it);
        continue;
      }
      this.byEntry.delete(it.e);
      if (it.sent && it.key !== null) out.push({ key: it.key, createdAt: it.created, sessions: 1 });
    }
    if (keep.length !== a.length) this.byShare.set(share, keep);
    return out;
  }

  /** The record of an item (shared buffer: copy what you keep). */
  record(it: Item): SessionRecord {
    return this.board.table.readRecord(it.e, this.rec);
  }
}

