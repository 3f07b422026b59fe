/**
 * What a capture reader hands to its callback for every packet: one reused object whose `buf`
 * points into the reader's current chunk (or its carry buffer). Valid only during the callback;
 * copy what you keep. Reading a record allocates nothing: the `data` view is made only when asked.
 */

/** One capture interface (the pcap file header, or one pcapng Interface Description Block). */
export interface CaptureInterface {
  /** pcapng section index (0-based, in file order); 0 for pcap. */
  section: number;
  /** Interface ID as the file numbers it: local to its pcapng section (what tshark shows as
   * `frame.interface_id`); 0 for pcap. */
  interfaceId: number;
  /** Link type, low 16 bits (FCS bits 26-31 of pcap's word dropped). */
  linkType: number;
  /** False when atcasim cannot decode this link type: its packets are delivered but flagged. */
  linkSupported: boolean;
  /** Snapshot length, bytes (0 = unlimited in pcapng). */
  snaplen: number;
  /** Timestamp resolution: units per second as text, e.g. '1e6', '1e9', '2^20'. */
  tsResolution: string;
  /** File offset of the pcap header / IDB, bytes. */
  fileOffset: number;
}

export class CaptureRecord {
  /** 1-based packet number in the file (pcapng custom and other non-packet blocks are not counted). */
  number = 0;
  /** pcapng section index (0-based); 0 for pcap. */
  section = 0;
  /** Interface ID local to the section (pcapng EPB/PB field; 0 for SPB and pcap). */
  interfaceId = 0;
  /** Link type of the interface (low 16 bits). */
  linkType = 0;
  /** False when the interface's link type is not one atcasim decodes. */
  linkSupported = true;
  /** False for pcapng Simple Packet Blocks, which carry no timestamp. */
  hasTimestamp = true;
  /** Timestamp: whole seconds since 1970-01-01T00:00:00Z (exact while below 2^53). */
  tsSec = 0;
  /** Timestamp: nanoseconds within `tsSec`, 0..999 999 999 (finer resolutions are truncated). */
  tsNsec = 0;
  /** Captured bytes of this record. */
  caplen = 0;
  /** Original length of the packet on the wire, bytes (pcap orig_len; may exceed caplen). */
  origLen = 0;
  /** Buffer holding the captured bytes at [offset, offset + caplen). Reused: valid during the callback only. */
  buf: Uint8Array = EMPTY;
  /** Offset of the first captured byte in `buf`. */
  offset = 0;
  /** Byte offset of this record (its record header or block) in the file. */
  fileOffset = 0;

  /** The captured bytes as their own view (allocates one view; the hot path reads `buf` at `offset`). */
  get data(): Uint8Array {
    return this.buf.subarray(this.offset, this.offset + this.caplen);
  }

  /** `frame.time_epoch` as tshark prints it: seconds with 9 decimals, '' without a timestamp. */
  epochText(): string {
    if (!this.hasTimestamp) return '';
    return `${this.tsSec}.${String(this.tsNsec).padStart(9, '0')}`;
  }
}

const EMPTY = new Uint8Array(0);
