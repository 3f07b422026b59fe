// The per-activation SOL channel (chassis/ipmi/sol/sol-channel.ts) in simulated time: ACKs,
// duplicates, stop-and-wait output, retransmission, partial ACK, NACK, overrun, flush, CTS.
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../../../../board/common/sim-clock.ts';
import { SolChannel } from '../../../../../chassis/ipmi/sol/sol-channel.ts';
import { decodeSolPacket, SolOperation, SolStatus, type SolPacket } from '../../../../../chassis/ipmi/sol/sol-packet.ts';

const txt = (s: string) => Buffer.from(s, 'latin1');

function channel(opts: Partial<ConstructorParameters<typeof SolChannel>[0]> = {}) {
  const clock = new SimClock();
  const sent: SolPacket[] = [];
  const delivered: string[] = [];
  const ch = new SolChannel({
    clock,
    send: (p) => sent.push(decodeSolPacket(p)),
    deliver: (b) => delivered.push(Buffer.from(b).toString('latin1')),
    maxOutbound: 8,
    retryCount: 2,
    retryIntervalMs: 100,
    ...opts,
  });
  const text = (p: SolPacket) => Buffer.from(p.data).toString('latin1');
  return { clock, ch, sent, delivered, text };
}

describe('SolChannel', () => {
  it('acknowledges console data at once with an ACK-only packet and delivers it', () => {
    const { ch, sent, delivered } = channel();
    ch.receive({ seq: 1, ackSeq: 0, accepted: 0, flags: 0, data: txt('help\r') });
    expect(delivered).toEqual(['help\r']);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ seq: 0, ackSeq: 1, accepted: 5, flags: 0 });
    expect(sent[0]!.data.length).toBe(0);
  });

  it('output produced while a console packet is handled (echo, answer) leaves in one packet after the ACK', () => {
    const clock = new SimClock();
    const sent: SolPacket[] = [];
    const ch: SolChannel = new SolChannel({
      clock,
      send: (p) => sent.push(decodeSolPacket(p)),
      deliver: () => {
        ch.write(txt('\r\n'));
        ch.write(txt('slot3> '));
      },
      maxOutbound: 100,
      retryCount: 1,
      retryIntervalMs: 100,
    });
    ch.receive({ seq: 1, ackSeq: 0, accepted: 0, flags: 0, data: txt('\r') });
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({ seq: 0, ackSeq: 1, accepted: 1 });
    expect(Buffer.from(sent[1]!.data).toString()).toBe('\r\nslot3> ');
  });

  it('a retransmitted packet is acknowledged again but only its new characters are delivered', () => {
    const { ch, sent, delivered } = channel();
    ch.receive({ seq: 4, ackSeq: 0, accepted: 0, flags: 0, data: txt('ab') });
    ch.receive({ seq: 4, ackSeq: 0, accepted: 0, flags: 0, data: txt('ab') });
    ch.receive({ seq: 4, ackSeq: 0, accepted: 0, flags: 0, data: txt('abc') });
    ch.receive({ seq: 5, ackSeq: 0, accepted: 0, flags: 0, data: txt('ab') });
    expect(delivered).toEqual(['ab', 'c', 'ab']);
    expect(sent.map((p) => [p.ackSeq, p.accepted])).toEqual([[4, 2], [4, 2], [4, 3], [5, 2]]);
    expect(ch.stats.duplicatesIn).toBe(2);
  });

  it('sends output stop-and-wait in packets of at most maxOutbound characters', () => {
    const { ch, sent, text } = channel();
    ch.write(txt('0123456789abcdefXY'));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ seq: 1, ackSeq: 0 });
    expect(text(sent[0]!)).toBe('01234567');
    ch.write(txt('Z'));
    expect(sent).toHaveLength(1); // still waiting for the ACK
    ch.receive({ seq: 0, ackSeq: 1, accepted: 8, flags: 0, data: new Uint8Array(0) });
    expect(text(sent[1]!)).toBe('89abcdef');
    expect(sent[1]!.seq).toBe(2);
    ch.receive({ seq: 0, ackSeq: 2, accepted: 8, flags: 0, data: new Uint8Array(0) });
    expect(text(sent[2]!)).toBe('XYZ');
    ch.receive({ seq: 0, ackSeq: 3, accepted: 3, flags: 0, data: new Uint8Array(0) });
    expect(ch.awaitingAck).toBe(false);
    expect(ch.pendingBytes).toBe(0);
  });

  it('an ACK of another sequence number does not release the outstanding packet', () => {
    const { ch, sent } = channel();
    ch.write(txt('abc'));
    ch.write(txt('d'));
    ch.receive({ seq: 0, ackSeq: 9, accepted: 3, flags: 0, data: new Uint8Array(0) });
    expect(sent).toHaveLength(1);
    expect(ch.awaitingAck).toBe(true);
  });

  it('retransmits the same packet (same sequence number) until acknowledged, at the retry interval', () => {
    const { ch, sent, clock, text } = channel();
    ch.write(txt('hello'));
    clock.advance(99);
    expect(sent).toHaveLength(1);
    clock.advance(1);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    ch.receive({ seq: 0, ackSeq: sent[0]!.seq, accepted: 5, flags: 0, data: new Uint8Array(0) });
    clock.advance(1000);
    expect(sent).toHaveLength(2);
    expect(ch.stats.retransmits).toBe(1);
    expect(text(sent[1]!)).toBe('hello');
  });

  it('after retryCount retransmissions the characters are dropped and the next packet flags the overrun', () => {
    const { ch, sent, clock, text } = channel();
    ch.write(txt('lost'));
    ch.write(txt('next'));
    clock.advance(100);
    clock.advance(100);
    expect(sent).toHaveLength(3); // first + 2 retries, all seq 1
    expect(sent.every((p) => p.seq === 1)).toBe(true);
    clock.advance(100);
    expect(sent).toHaveLength(4);
    expect(sent[3]).toMatchObject({ seq: 2, flags: SolStatus.transmitOverrun });
    expect(text(sent[3]!)).toBe('next');
    expect(ch.stats.charsDropped).toBe(4);
  });

  it('a partial ACK sends the rest in a new packet; a NACK keeps the packet for the retry', () => {
    const { ch, sent, clock, text } = channel();
    ch.write(txt('abcdef'));
    ch.receive({ seq: 0, ackSeq: 1, accepted: 2, flags: 0, data: new Uint8Array(0) });
    expect(sent[1]).toMatchObject({ seq: 2 });
    expect(text(sent[1]!)).toBe('cdef');
    ch.receive({ seq: 0, ackSeq: 2, accepted: 0, flags: SolOperation.nack, data: new Uint8Array(0) });
    expect(sent).toHaveLength(2);
    clock.advance(100);
    expect(sent[2]).toEqual(sent[1]);
  });

  it('flush outbound discards buffered output; deassert CTS pauses sending until cleared', () => {
    const { ch, sent, text } = channel();
    ch.write(txt('12345678'));
    ch.write(txt('more'));
    ch.receive({ seq: 0, ackSeq: 1, accepted: 8, flags: SolOperation.flushOutbound, data: new Uint8Array(0) });
    expect(ch.pendingBytes).toBe(0);
    expect(sent).toHaveLength(1);
    ch.receive({ seq: 0, ackSeq: 0, accepted: 0, flags: SolOperation.deassertCts, data: new Uint8Array(0) });
    ch.write(txt('held'));
    expect(sent).toHaveLength(1);
    ch.receive({ seq: 0, ackSeq: 0, accepted: 0, flags: 0, data: new Uint8Array(0) });
    expect(text(sent[1]!)).toBe('held');
  });

  it('output beyond the buffer limit is dropped with the overrun flag', () => {
    const { ch, sent } = channel({ bufferLimit: 10 });
    ch.write(txt('0123456789ABCDEF')); // the buffer takes 10, the rest is dropped
    expect(ch.stats.charsDropped).toBe(6);
    expect(sent[0]!.flags & SolStatus.transmitOverrun).toBe(SolStatus.transmitOverrun);
    ch.receive({ seq: 0, ackSeq: 1, accepted: 8, flags: 0, data: new Uint8Array(0) });
    expect(Buffer.from(sent[1]!.data).toString()).toBe('89');
    expect(sent[1]!.flags).toBe(0);
  });

  it('close(notify) sends the "SOL deactivating" status and stops everything', () => {
    const { ch, sent, clock, delivered } = channel();
    ch.write(txt('abc'));
    ch.close(true);
    expect(sent.at(-1)).toMatchObject({ seq: 0, flags: SolStatus.deactivating });
    const n = sent.length;
    clock.advance(10_000);
    ch.write(txt('x'));
    ch.receive({ seq: 1, ackSeq: 0, accepted: 0, flags: 0, data: txt('y') });
    expect(sent).toHaveLength(n);
    expect(delivered).toEqual([]);
  });

  it('rejects impossible settings', () => {
    expect(() => channel({ maxOutbound: 0 })).toThrow(RangeError);
    expect(() => channel({ retryCount: 8 })).toThrow(RangeError);
    expect(() => channel({ retryIntervalMs: 0 })).toThrow(RangeError);
  });
});
