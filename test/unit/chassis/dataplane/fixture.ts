/**
 * Helpers for the data-plane tests: a default-shelf DataPlane with small session tables on a
 * SimClock, and captures read through the real reader and parser.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nullLogger } from '../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../board/common/random.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import type { PacketView } from '../../../../board/packet/flow-tuple.ts';
import { loadDefaultShelf } from '../../../../chassis/io/data-dir.ts';
import type { ShelfConfig } from '../../../../chassis/config/types.ts';
import { DataPlane } from '../../../../chassis/dataplane/data-plane.ts';
import type { DataPlaneOptions } from '../../../../chassis/dataplane/types.ts';
import { memoryInput, TrafficSource, type PacketSink } from '../../../../chassis/dataplane/traffic.ts';
import { repoRoot } from '../../../support/shared.ts';
import { seededCryptoRandom } from '../../../../chassis/platform.ts';

/** The capture bundled with the package (first 20,000 packets of the bench capture). */
export const BUNDLED = join(repoRoot, 'chassis', 'assets', 'loopback-mix-20k.pcap');

/** A DataPlane over the default shelf (or `config`) with 8192-entry tables on a SimClock. */
export function makePlane(opts: Partial<DataPlaneOptions> = {}, config: ShelfConfig = loadDefaultShelf()): { dp: DataPlane; clock: SimClock } {
  const clock = new SimClock();
  const dp = new DataPlane({
    config,
    platform: { clock, log: nullLogger, random: new SeededRandom(7), cryptoRandom: seededCryptoRandom(new SeededRandom(7)) },
    sessionCapacity: 8192,
    ...opts,
  });
  return { dp, clock };
}

/**
 * Runs a capture file through `sink` as fast as possible (whole-ms capture time from 0),
 * `loops` times. @returns packets delivered
 */
export function replayFile(file: string, sink: PacketSink, loops = 1): number {
  const src = new TrafficSource({ inputs: [memoryInput(file, readFileSync(file))], sink, loops });
  src.runAll();
  if (src.errors.length > 0) throw new Error(src.errors.map((e) => e.message).join('; '));
  return src.counters().packets;
}

/** A sink that forwards to `dp` and calls `onPacket(i, slot, pkt, now)` after each delivery. */
export function tap(dp: PacketSink, onPacket: (i: number, slot: number, pkt: PacketView, now: number) => void): PacketSink {
  let i = 0;
  return {
    deliver(pkt, now) {
      const slot = dp.deliver(pkt, now);
      onPacket(i++, slot, pkt, now);
      return slot;
    },
  };
}
