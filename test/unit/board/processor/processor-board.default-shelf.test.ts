// The default shelf's processor configuration (chassis/config) builds a ProcessorBoard
// (board/processor/processor-board.ts) that forwards a real capture.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CaptureReader } from '../../../../board/packet/capture-reader.ts';
import { PacketParser } from '../../../../board/packet/parse.ts';
import { ProcessorBoard } from '../../../../board/processor/processor-board.ts';
import { shared } from '../../../support/shared.ts';
import { parseShelfConfig } from '../../../../chassis/config/shelf-config.ts';
import { repoRoot } from '../../../support/shared.ts';

describe('the default shelf\'s processor configuration', () => {
  it('builds a board from chassis/config that forwards a real capture (wildcard VIPs, dynamic WRR, GRE)', () => {
    const shelf = parseShelfConfig(readFileSync(join(repoRoot, 'chassis', 'config', 'default-shelf.yaml'), 'utf8'), 'default-shelf.yaml');
    const cfg = shelf.dataplane.processor;
    const b = new ProcessorBoard({ ...cfg, sessions: { ...cfg.sessions, capacity: 20_000, hotCapacity: 1024 } }, { slot: 3 });
    const parser = new PacketParser();
    const reader = new CaptureReader({
      packet: (rec) => {
        b.handle(parser.parse(rec.data, rec.linkType, rec.origLen), rec.tsSec * 1000 + rec.tsNsec / 1e6);
      },
    });
    reader.push(readFileSync(shared('pcap', 'zeek__wikipedia.pcap')));
    reader.end();
    const st = b.stats();
    expect(st.packets).toBe(reader.packets);
    expect(st.flows).toBeGreaterThan(10);
    expect(st.forwarded).toBe(st.packets - st.drops.not_ip - st.drops.parse_error);
    expect(st.services.map((x) => x.scheduler)).toEqual(['dynamic', 'dynamic']);
    // the load score set the weights of the simulated pool (rs4 has the lowest baseline load)
    const w = st.services[0]!.rs.map((r) => r.effectiveWeight);
    expect(Math.max(...w)).toBe(100);
    expect(st.services[0]!.rs.find((r) => r.name === 'rs4')!.effectiveWeight).toBe(100);
  });
});
