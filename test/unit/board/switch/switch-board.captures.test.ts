/**
 * Every capture in ../shared/pcap, read by the capture reader and parsed by the packet parser
 * (board/packet), through both hubs of a default-shaped shelf: nothing throws, every packet is
 * forwarded and counted once, and — with the symmetric profile — every packet of a conversation
 * (both directions) leaves by the same port, on the outer and on the inner header.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { sharedCaptures } from '../../../support/shared.ts';
import { DecodeError } from '../../../../board/common/errors.ts';
import { CaptureReader } from '../../../../board/packet/capture-reader.ts';
import { PacketParser } from '../../../../board/packet/parse.ts';
import { EcmpGroup } from '../../../../board/switch/ecmp-group.ts';
import { FieldSelector, FLOW_KEY_BYTES, writeFlowKey } from '../../../../board/switch/field-select.ts';
import { SwitchBoard } from '../../../../board/switch/switch-board.ts';
import type { TunnelHeader } from '../../../../board/switch/switch-config.ts';

const MEMBERS = [3, 4, 5, 6].map((s) => ({ port: s, slot: s, failoverPort: s % 2 ? s + 1 : s - 1 }));

for (const tunnel of ['outer', 'inner'] as TunnelHeader[]) {
  describe(`shared captures through the hubs (tunnel ${tunnel})`, () => {
    let allPackets = 0;
    let allFlows = 0;
    for (const file of sharedCaptures()) {
      it(basename(file), () => {
        const group = new EcmpGroup({ mapping: 'resilient', buckets: 4096 }, MEMBERS);
        const hubs = [1, 2].map((slot) => new SwitchBoard({ slot, group, ecmp: { symmetric: true, tunnel } }));
        const parser = new PacketParser();
        const sel = new FieldSelector({ fields: 'l3l4', symmetric: true, tunnel, layout: 'standard' });
        const key = new Uint8Array(FLOW_KEY_BYTES);
        const portOfFlow = new Map<string, number>();
        let packets = 0;
        const reader = new CaptureReader({
          packet(rec) {
            const v = parser.parseAt(rec.buf, rec.offset, rec.caplen, rec.linkType, rec.origLen);
            const hub = hubs[packets % 2]!;
            packets++;
            const d = hub.ingress(v, packets);
            expect(d.forward).toBe(true);
            const n = writeFlowKey(sel.tupleOf(v), key);
            if (n > 0) {
              const id = Buffer.from(key.subarray(0, n)).toString('hex');
              const seen = portOfFlow.get(id);
              if (seen === undefined) portOfFlow.set(id, d.port);
              else expect(d.port, `flow ${id}`).toBe(seen);
            }
          },
        });
        try {
          reader.push(readFileSync(file));
          reader.end();
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e; // invalid or truncated captures end with a DecodeError
        }
        const total = hubs.map((h) => h.counters());
        expect(total.reduce((s, c) => s + c.packets, 0)).toBe(packets);
        expect(total.reduce((s, c) => s + c.forwarded, 0)).toBe(packets);
        for (const c of total) {
          expect(c.ports.reduce((s, p) => s + p.packets, 0)).toBe(c.forwarded);
          expect(c.flows).toBeLessThanOrEqual(c.packets);
        }
        allPackets += packets;
        allFlows += portOfFlow.size;
      });
    }
    it('saw real traffic (the checks above ran on packets)', () => {
      expect(allPackets).toBeGreaterThan(1000);
      expect(allFlows).toBeGreaterThan(50);
    });
  });
}
