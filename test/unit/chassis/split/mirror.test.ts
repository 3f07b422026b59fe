/**
 * Management-state mirroring (chassis/split/mirror.ts) in simulated time: the synchronous ack rule
 * (a write's answer waits for the hot standby's commit), in-order commit with gaps and resends,
 * catch-up, the bounded wait, and the datagram codec.
 */
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../board/common/errors.ts';
import { SimClock } from '../../../../board/common/sim-clock.ts';
import { classifyPairDatagram, MirrorReceiver, MirrorSender, mirrorCodec, type MirrorDatagram, type MirrorEntry } from '../../../../chassis/split/mirror.ts';

function pair(opts: { drop?: (d: MirrorDatagram, dir: 'fwd' | 'back') => boolean; latencyMs?: number } = {}) {
  const clock = new SimClock(0);
  const log: string[] = [];
  const store = new Map<number, string>();
  const active = new Map<number, string>();
  let streams = 0;
  const lat = opts.latencyMs ?? 1;
  let rx: MirrorReceiver;
  const tx = new MirrorSender({
    clock,
    send: (d) => {
      const bytes = mirrorCodec.encode(d);
      if (opts.drop?.(d, 'fwd')) return;
      clock.setTimeout(() => rx.receive(mirrorCodec.decode(bytes)), lat);
    },
    all: () => [...active].map(([id, data]): MirrorEntry => ({ kind: 'sel', id, data })),
    newStream: () => ++streams,
    resendMs: 100,
    ackTimeoutMs: 300,
  });
  rx = new MirrorReceiver({
    commit: (e) => {
      if (e.kind === 'sel') {
        store.set(e.id, e.data);
        log.push(`commit ${e.id}`);
      } else if (e.kind === 'sel-del') store.delete(e.id);
      else store.clear();
    },
    send: (d) => {
      const bytes = mirrorCodec.encode(d);
      if (opts.drop?.(d, 'back')) return;
      clock.setTimeout(() => tx.receive(mirrorCodec.decode(bytes)), lat);
    },
  });
  const write = (id: number) => {
    active.set(id, `r${id}`);
    tx.append({ kind: 'sel', id, data: `r${id}` });
  };
  return { clock, tx, rx, store, log, write };
}

describe('mirror', () => {
  it('with a hot standby, an answer is released only after the standby committed every earlier write', () => {
    const p = pair({ latencyMs: 5 });
    p.rx.requestCatchUp();
    p.clock.advance(20);
    p.tx.setPeerHot(true);
    p.write(1);
    p.write(2);
    p.tx.afterCommitted(() => p.log.push('reply'));
    expect(p.log).toEqual([]);
    p.clock.advance(5);
    expect(p.log).toEqual(['commit 1', 'commit 2']);
    p.clock.advance(5);
    expect(p.log).toEqual(['commit 1', 'commit 2', 'reply']);
    expect(p.tx.ackedSeq).toBe(p.tx.lastSeq);
  });

  it('without a hot standby the answer goes at once (the standby catches up later)', () => {
    const p = pair();
    p.write(1);
    p.tx.afterCommitted(() => p.log.push('reply'));
    expect(p.log).toEqual(['reply']);
    expect(p.tx.synchronous).toBe(false);
  });

  it('lost datagrams: gaps are not committed out of order; resends fill them; the answer waits', () => {
    let dropped = false;
    const p = pair({ drop: (d, dir) => dir === 'fwd' && d.k === 'rec' && d.seq === 2 && !dropped && (dropped = true) });
    p.tx.setPeerHot(true);
    p.write(1);
    p.clock.advance(10); // in step
    expect(p.log).toEqual(['commit 1']);
    p.write(2);
    p.write(3);
    p.tx.afterCommitted(() => p.log.push('reply'));
    p.clock.advance(10);
    expect(p.log).toEqual(['commit 1']); // 3 arrived without 2: held back
    expect(p.rx.stats.gaps).toBe(1);
    p.clock.advance(200);
    expect(p.log).toEqual(['commit 1', 'commit 2', 'commit 3', 'reply']);
    expect(p.tx.stats.resent).toBeGreaterThan(0);
    expect(p.tx.stats.catchUps).toBe(0);
  });

  it('a standby that never acknowledges holds a write at most ackTimeoutMs, then counts as lagging', () => {
    const p = pair({ drop: (_d, dir) => dir === 'back' });
    p.tx.setPeerHot(true);
    p.write(1);
    let at = -1;
    p.tx.afterCommitted(() => (at = p.clock.now()));
    p.clock.advance(299);
    expect(at).toBe(-1);
    p.clock.advance(1);
    expect(at).toBe(300);
    expect(p.tx.lagging).toBe(true);
    expect(p.tx.synchronous).toBe(false);
    expect(p.tx.stats.timeouts).toBe(1);
  });

  it('catch-up: a standby that missed the start of the stream gets every entry the active holds', () => {
    let down = true;
    const p = pair({ drop: () => down });
    p.write(1);
    p.write(2);
    p.clock.advance(50);
    expect(p.store.size).toBe(0);
    down = false; // the standby is back (booted): the next entry is not the stream's first
    p.write(3);
    p.clock.advance(1);
    expect(p.store.size).toBe(0); // not committed out of step: it asked for a catch-up
    expect(p.rx.stats.wants).toBe(1);
    p.clock.advance(10);
    expect([...p.store.keys()].sort()).toEqual([1, 2, 3]);
    expect(p.rx.inStep).toBe(true);
    expect(p.tx.stats.catchUps).toBe(1);
    p.write(4);
    p.clock.advance(10);
    expect([...p.store.keys()].sort()).toEqual([1, 2, 3, 4]);
  });

  it('codec: round trip, garbage refused, datagram classes by tag', () => {
    const ds: MirrorDatagram[] = [
      { k: 'want' }, { k: 'ack', stream: 1, seq: 0 }, { k: 'rec', stream: 9, seq: 1, entry: { kind: 'sel', id: 3, data: 'AA==' } },
      { k: 'rec', stream: 9, seq: 2, entry: { kind: 'sel-del', id: 3 } }, { k: 'rec', stream: 9, seq: 3, entry: { kind: 'sel-clear' } },
    ];
    for (const d of ds) expect(mirrorCodec.decode(mirrorCodec.encode(d))).toEqual(d);
    for (const b of [new Uint8Array([0x41, 0x4d]), new Uint8Array([0x41, 0x4d, 2, 0x7b, 0x7d]), new Uint8Array([0x41, 0x4d, 1, 0xff]), new TextEncoder().encode('AM\u0001{"k":"rec","stream":1,"seq":0}')]) {
      expect(() => mirrorCodec.decode(b)).toThrow(DecodeError);
    }
    expect(classifyPairDatagram(mirrorCodec.encode({ k: 'want' }))).toBe('mirror');
    expect(classifyPairDatagram(new Uint8Array([0x41, 0x48, 1]))).toBe('heartbeat');
    expect(classifyPairDatagram(new Uint8Array([0x41, 0x53, 1]))).toBe('sync');
    expect(classifyPairDatagram(new Uint8Array([1, 2, 3]))).toBe('garbage');
  });
});
