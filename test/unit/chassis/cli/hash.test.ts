import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { main } from '../../../../chassis/main.ts';
import { runHash, type ShelfEcmp } from '../../../../chassis/cli/hash.ts';
import { shared } from '../../../support/shared.ts';
import { DEFAULT_ECMP } from '../../../../board/switch/switch-config.ts';
import { placeFlow, tupleFromText } from '../../../../board/switch/place-flow.ts';
import { DEFAULT_SHELF_PATH, loadDefaultShelf } from '../../../../chassis/io/data-dir.ts';
import { ecmpMembers } from '../../../../chassis/config/slots.ts';

function sink(): Writable & { text: string } {
  const w = new Writable({
    write(chunk, _enc, cb) {
      w.text += String(chunk);
      cb();
    },
  }) as Writable & { text: string };
  w.text = '';
  return w;
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(['node', 'atcasim', 'hash', ...args], { stdout, stderr });
  return { code, out: stdout.text, err: stderr.text };
}

const suite = JSON.parse(readFileSync(shared('vectors', 'toeplitz.json'), 'utf8')) as {
  vectors: Array<{ src_ip: string; dst_ip: string; src_port: number; dst_port: number; l3: { expected_hash_hex: string }; l3l4: { expected_hash_hex: string } }>;
};

describe('atcasim hash', () => {
  it('prints the published Toeplitz values for the RSS vectors (default key)', async () => {
    for (const v of suite.vectors) {
      const withPorts = await cli('--alg', 'toeplitz', '--src', v.src_ip, '--dst', v.dst_ip, '--sport', `${v.src_port}`, '--dport', `${v.dst_port}`);
      expect(withPorts).toEqual({ code: 0, out: `hash=0x${v.l3l4.expected_hash_hex}\n`, err: '' });
      const l3 = await cli('--alg', 'toeplitz', '--src', v.src_ip, '--dst', v.dst_ip);
      expect(l3.out).toBe(`hash=0x${v.l3.expected_hash_hex}\n`);
    }
  });

  it('takes a --key and zero-extends 16-bit hashes', async () => {
    const sym = await cli('--alg', 'toeplitz', '--key', '6d5a'.repeat(20), '--src', '66.9.149.187', '--dst', '161.142.100.80', '--sport', '2794', '--dport', '1766');
    expect(sym.out).toBe('hash=0x9fcc9fcc\n'); // derived symmetric-key vector in ../shared/vectors/toeplitz.json
    for (const alg of ['pearson', 'crc16']) {
      const r = await cli('--alg', alg, '--src', '10.0.0.1', '--dst', '10.0.0.2', '--sport', '1', '--dport', '2');
      expect(r.out).toMatch(/^hash=0x0000[0-9a-f]{4}\n$/);
    }
    expect((await cli('--src', '10.0.0.1', '--dst', '10.0.0.2')).out).toMatch(/^hash=0x[0-9a-f]{8}\n$/);
  });

  it('--symmetric makes the 192.168.37.50:1234 ↔ 192.168.37.178:80 pair hash alike with every algorithm', async () => {
    for (const alg of ['pearson', 'crc32', 'crc16', 'toeplitz']) {
      const a = await cli('--alg', alg, '--symmetric', '--src', '192.168.37.50', '--dst', '192.168.37.178', '--sport', '1234', '--dport', '80');
      const b = await cli('--alg', alg, '--symmetric', '--src', '192.168.37.178', '--dst', '192.168.37.50', '--sport', '80', '--dport', '1234');
      expect(a.code).toBe(0);
      expect(b.out).toBe(a.out);
    }
  });

  it('rejects bad input with a message and exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--src', '10.0.0.256', '--dst', '10.0.0.1'], /source '10\.0\.0\.256' is not an IPv4 or IPv6 address/],
      [['--src', '10.0.0.1', '--dst', 'fe80::1'], /source is IPv4 but destination is IPv6/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--sport', '1'], /give both --sport and --dport/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--sport', 'x', '--dport', '2'], /--sport: 'x' is not a port number/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--sport', '1', '--dport', '2', '--proto', 'icmp'], /has no ports/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--proto', 'tcpp'], /unknown protocol 'tcpp'/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--alg', 'toeplitz', '--key', 'abcd'], /expected 40 bytes \(80 hex digits\), got 2/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--key', '6d5a'.repeat(20)], /--key applies to --alg toeplitz only/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--alg', 'md5'], /Allowed choices/],
      [['--dst', '10.0.0.2'], /--src/],
      [['--src', '10.0.0.1', '--dst', '10.0.0.2', '--config', '/nonexistent/shelf.yaml'], /\/nonexistent\/shelf\.yaml:1:1: no such file/],
    ];
    for (const [args, msg] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(msg);
    }
  });

  it('with a shelf, prints the hub port and board the flow lands on', async () => {
    const shelf: ShelfEcmp = {
      ecmp: { ...DEFAULT_ECMP, symmetric: true },
      members: [
        { port: 3, slot: 3, failoverPort: 4 },
        { port: 4, slot: 4, failoverPort: 3 },
        { port: 5, slot: 5 },
        { port: 6, slot: 6 },
      ],
    };
    const flow = { src: '192.168.37.50', dst: '192.168.37.178', sport: 1234, dport: 80 };
    const line = await runHash({ ...flow, sport: '1234', dport: '80', config: 'shelf.yaml' }, async () => shelf);
    const p = placeFlow(shelf.ecmp, shelf.members, tupleFromText(flow));
    expect(line).toBe(`hash=0x${p.hash.toString(16).padStart(8, '0')} port=${p.port} board=slot${p.slot}`);
    expect([3, 4, 5, 6]).toContain(p.port);
    // the shelf's settings apply unless overridden
    const rev = await runHash({ src: flow.dst, dst: flow.src, sport: '80', dport: '1234', config: 'x' }, async () => shelf);
    expect(rev).toBe(line);
    const off = await runHash({ src: flow.dst, dst: flow.src, sport: '80', dport: '1234', config: 'x', symmetric: false }, async () => shelf);
    expect(off.split(' ')[0]).not.toBe(line.split(' ')[0]);
    const none = await runHash({ ...flow, sport: '1234', dport: '80', config: 'x' }, async () => ({ ...shelf, members: [] }));
    expect(none).toMatch(/ port=none board=none$/);
  });

  it('--config reads a shelf YAML: the default shelf places both directions of a flow on one board', async () => {
    const shelf = loadDefaultShelf();
    const members = ecmpMembers(shelf, { buddyFailover: true });
    expect(members.length).toBeGreaterThan(0);
    const flow = { src: '192.168.37.50', dst: '192.168.37.178', sport: 1234, dport: 80 };
    const p = placeFlow(shelf.dataplane.ecmp, members, tupleFromText(flow));
    const fwd = await cli('--config', DEFAULT_SHELF_PATH, '--src', flow.src, '--dst', flow.dst, '--sport', '1234', '--dport', '80');
    expect(fwd).toEqual({ code: 0, out: `hash=0x${p.hash.toString(16).padStart(8, '0')} port=${p.port} board=slot${p.slot}\n`, err: '' });
    if (shelf.dataplane.ecmp.symmetric) {
      const rev = await cli('--config', DEFAULT_SHELF_PATH, '--src', flow.dst, '--dst', flow.src, '--sport', '80', '--dport', '1234');
      expect(rev.out).toBe(fwd.out);
    }
  });
});
