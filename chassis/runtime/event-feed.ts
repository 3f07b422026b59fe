/**
 * The event feed of the TUI's event pane and the headless log: the SEL as it grows, each record
 * with the FRU that generated it (resolved when it was logged, so a record from the shelf-manager
 * address 20h names the ShMC that was active then) and its ipmitool-style text
 * (chassis/sensors/sel-text.ts). Fed by the Shelf's `sel.added` / `sel.cleared` / `sel.deleted`
 * events; starts with the newest records already in the SEL (a restart shows the history).
 * Bounded: keeps the newest `capacity` entries.
 */
import type { Shelf } from '../model/shelf.ts';
import type { SelRecord } from '../sensors/sel.ts';

/** One SEL record as the event pane shows it. */
export interface FeedEntry {
  recordId: number;
  /** SEL timestamp, Unix seconds (0 for a record without one). */
  selTime: number;
  /** FRU name of the generator (`slot3`, `shmc-a`), or `0xNN` when no FRU answers that address. */
  source: string;
  /** ipmitool `sel elist`-style text. */
  text: string;
  /** Deassertion event (b7 of event/dir type). */
  deasserted: boolean;
  /** Sensor type code (F0h hot swap, 15h module/board, …) for colouring. */
  sensorType: number;
  /** Hot-swap records: the new M-state. */
  mState?: number;
}

/** Keeps the newest SEL entries with their sources. */
export class EventFeed {
  private readonly items: FeedEntry[] = [];
  private readonly unsubscribe: Array<() => void>;
  private version = 0;

  /**
   * @param shelf the shelf whose SEL is followed
   * @param capacity entries kept (default 200)
   */
  constructor(
    private readonly shelf: Shelf,
    private readonly capacity = 200,
  ) {
    for (const r of shelf.sel.records().slice(-capacity)) this.push(r);
    this.unsubscribe = [
      shelf.on('sel.added', (e) => this.push(e.record)),
      shelf.on('sel.cleared', () => {
        this.items.length = 0;
        this.version++;
      }),
      shelf.on('sel.deleted', (e) => {
        const i = this.items.findIndex((x) => x.recordId === e.recordId);
        if (i >= 0) this.items.splice(i, 1);
        this.version++;
      }),
    ];
  }

  /** Entries, oldest first. */
  entries(): readonly FeedEntry[] {
    return this.items;
  }

  /** Changes with every added or removed entry (lets a UI skip unchanged renders). */
  get seq(): number {
    return this.version;
  }

  /** Stops following the shelf. */
  close(): void {
    for (const u of this.unsubscribe) u();
  }

  /** Turns a record into a feed entry (exported through the instance for the headless log). */
  entryOf(r: SelRecord): FeedEntry {
    const addr = (r.generatorId ?? 0) & 0xfe;
    let source: string;
    try {
      source = this.shelf.resolveAddress(addr) ?? `0x${addr.toString(16).padStart(2, '0')}`;
    } catch {
      source = `0x${addr.toString(16).padStart(2, '0')}`;
    }
    const e: FeedEntry = {
      recordId: r.recordId,
      selTime: r.timestamp ?? 0,
      source,
      text: this.shelf.sel.describe(r),
      deasserted: ((r.eventDirType ?? 0) & 0x80) !== 0,
      sensorType: r.sensorType ?? 0,
    };
    if (r.sensorType === 0xf0 && r.eventData) e.mState = r.eventData[0] & 0x0f;
    return e;
  }

  private push(r: SelRecord): void {
    this.items.push(this.entryOf(r));
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
    this.version++;
  }
}
