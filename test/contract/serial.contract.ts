// The serial-console contract: ONE suite (banner and every shell command, line editing, garbage)
// that runs against every serial edge a console can sit behind — the @serialport/binding-mock port
// and a real socat PTY driven from the user side (serial.contract.test.ts wires both), as
// node-serialport runs its stream tests against the mock and a real port (STYLE.md §4.2).
//
// Each factory gives a console of a running emulator (wall clock, real shelf and data plane) and a
// user-side terminal on its serial edge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../chassis/runtime/emulator.ts';

/** The user's side of a serial line. */
export interface UserTerminal {
  /** Sends bytes as a terminal would (JS string of bytes 0..255). */
  write(text: string): Promise<void>;
  /** Everything received so far (latin1). */
  received(): string;
}

/** What a factory sets up. */
export interface SerialRig {
  em: Emulator;
  /** The FRU whose console is under test (a processor board). */
  fru: string;
  term: UserTerminal;
  cleanup(): Promise<void>;
}

/** Waits until the text received after `from` matches `re`; returns that text. */
export async function readUntil(term: UserTerminal, from: number, re: RegExp, timeoutMs = 10_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = term.received().slice(from);
    if (re.test(got)) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${re} on the console; got ${JSON.stringify(got.slice(-400))}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Types a line and returns the console's answer up to and including the next prompt. */
async function run(term: UserTerminal, prompt: string, line: string): Promise<string> {
  const from = term.received().length;
  await term.write(`${line}\r`);
  return readUntil(term, from, new RegExp(`${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\r\\n[\\s\\S]*${prompt}$`));
}

/** Runs the contract against one serial edge. */
export function serialContract(name: string, factory: () => Promise<SerialRig>): void {
  describe(`serial console contract: ${name}`, () => {
    let rig: SerialRig;
    let prompt: string;
    beforeAll(async () => {
      rig = await factory();
      prompt = `${rig.fru}> `;
    });
    afterAll(async () => {
      await rig?.cleanup();
    });

    it('answers Enter with a prompt (echo CR LF, then the prompt)', async () => {
      const from = rig.term.received().length;
      await rig.term.write('\r');
      expect(await readUntil(rig.term, from, new RegExp(`${prompt}$`))).toBe(`\r\n${prompt}`);
    });

    it('reboot: the board restarts (out of service for a moment) and prints the boot banner', async () => {
      const from = rig.term.received().length;
      await rig.term.write('reboot\r');
      const out = await readUntil(rig.term, from, new RegExp(`Type 'help' for the list of commands\\.\\r\\n${prompt}$`));
      expect(out).toContain('Cold reset: restarting system.');
      expect(out).toMatch(/atcasim processor board firmware \d+\.\d\d - Processor Node \(Node\d\)/);
      expect(out).toMatch(/logical slot \d+ \(physical \d+\), hardware address 0x4\d, IPMB-0 0x[89a-f][0-9a-f]/);
      expect(out).toMatch(/hot-swap state M4 \(Active\), console 115200 8N1/);
    });

    it('help lists the commands', async () => {
      const out = await run(rig.term, prompt, 'help');
      for (const c of ['show version', 'show slot', 'show sensors', 'show sessions [N]', 'show rs', 'show ha', 'show sel [N]', 'set weight VIP RS W', 'reboot']) expect(out).toContain(c);
    });

    it('show version', async () => {
      const out = await run(rig.term, prompt, 'show version');
      expect(out).toMatch(/Board: +Processor Node \(processor board\), Node\d/);
      expect(out).toMatch(/Firmware: +1\.05 \(atcasim IPMC\)/);
      expect(out).toMatch(/Uptime: +0d 00:0\d:\d\d/);
    });

    it('show slot', async () => {
      const cfg = rig.em.shelf.fruConfig(rig.fru);
      const out = await run(rig.term, prompt, 'show slot');
      expect(out).toContain(`logical ${cfg.slot}, physical ${cfg.physicalSlot}`);
      expect(out).toMatch(new RegExp(`IPMB-0 address: +0x${cfg.ipmbAddress.toString(16)}`));
      expect(out).toMatch(/Hot-swap state: +M4 \(Active\)/);
      expect(out).toMatch(/In service: +yes/);
    });

    it('show sensors', async () => {
      const out = await run(rig.term, prompt, 'show sensors');
      expect(out).toMatch(/Sensor +Reading +Unit +Status/);
      for (const s of rig.em.shelf.sensors.list(rig.fru)) expect(out).toContain(s.name);
    });

    it('show sessions 5 lists five live sessions of this board', async () => {
      // the reboot above emptied the board's table: wait until traffic has refilled it a little
      const slot = Number(rig.fru.replace('slot', ''));
      const end = Date.now() + 30_000;
      for (;;) {
        rig.em.sampleTraffic();
        const b = rig.em.view().traffic?.boards.find((x) => x.slot === slot);
        if ((b?.sessions.active ?? 0) >= 5) break;
        if (Date.now() > end) throw new Error(`${rig.fru} holds fewer than 5 sessions after 30 s of traffic`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const out = await run(rig.term, prompt, 'show sessions 5');
      // every protocol name the data plane prints (the bundled capture also carries GRE, IP-in-IP,
      // IPv6-in-IPv4 and unnamed protocols, shown by number)
      const rows = out.split('\r\n').filter((l) => /^(tcp|udp|icmp|sctp|icmpv6|gre|ipip|ipv6|\d+)\s/.test(l) && !/ shown/.test(l));
      expect(rows, out).toHaveLength(5);
      expect(out).toMatch(/5 sessions shown of \d+ active/);
    });

    it('show rs prints the ipvsadm -Ln table of this board', async () => {
      const out = await run(rig.term, prompt, 'show rs');
      expect(out).toContain('Prot LocalAddress:Port Scheduler Flags');
      const t = rig.em.rsTable(rig.em.shelf.fruConfig(rig.fru).slot!)!;
      for (const s of t.services) {
        expect(out).toContain(`${s.vip}:${s.port} ${s.scheduler}`);
        for (const r of s.realServers) expect(out).toContain(`  -> ${r.address}`);
      }
    });

    it('show ha and show sel', async () => {
      expect(await run(rig.term, prompt, 'show ha')).toMatch(/HA: no role reported|Key +Role +Epoch/);
      const sel = await run(rig.term, prompt, 'show sel 5');
      expect(sel.split('\r\n').filter((l) => / \| /.test(l)).length).toBeGreaterThan(0);
    });

    it('set weight VIP RS W changes the weight on this board', async () => {
      const slot = rig.em.shelf.fruConfig(rig.fru).slot!;
      const s = rig.em.rsTable(slot)!.services[0]!;
      const r = s.realServers[1]!;
      const out = await run(rig.term, prompt, `set weight ${s.vip}:${s.port} ${r.address} 9`);
      expect(out).toContain('set to 9');
      expect(rig.em.rsTable(slot)!.services[0]!.realServers[1]!.weight).toBe(9);
      const shown = await run(rig.term, prompt, 'show rs');
      expect(shown).toMatch(new RegExp(`-> ${r.address.replace(/\./g, '\\.')} +\\S+ +9 `));
    });

    it('a bad command gets exactly one error line, then the prompt', async () => {
      const out = await run(rig.term, prompt, 'show weather');
      expect(out).toBe(`show weather\r\n% unknown command "show weather"; try: show version, show slot, show sensors, show sessions [N], show rs, show ha, show sel [N]\r\n${prompt}`);
    });

    it('line editing: backspace/DEL erase, ^C cancels, escape sequences are swallowed', async () => {
      let from = rig.term.received().length;
      await rig.term.write('show slox\x7ft\r');
      expect(await readUntil(rig.term, from, new RegExp(`Hot-swap state[\\s\\S]*${prompt}$`))).toContain('slox\b \bt');
      from = rig.term.received().length;
      await rig.term.write('reboot\x03');
      expect(await readUntil(rig.term, from, new RegExp(`\\^C\\r\\n${prompt}$`))).toBe(`reboot^C\r\n${prompt}`);
      from = rig.term.received().length;
      await rig.term.write('\x1b[A\x1b[Bshow version\r');
      expect(await readUntil(rig.term, from, new RegExp(`Firmware[\\s\\S]*${prompt}$`))).toMatch(/^show version\r\n/);
    });

    it('garbage bytes never break the console', async () => {
      let seed = 4242;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
      const junk = String.fromCharCode(...Array.from({ length: 600 }, rnd).filter((b) => b !== 0x0d && b !== 0x0a && b !== 0x03));
      await rig.term.write(junk);
      const from = rig.term.received().length;
      await rig.term.write('\x15show version\r');
      expect(await readUntil(rig.term, from, new RegExp(`Firmware[\\s\\S]*${prompt}$`))).toContain('Firmware');
    });
  });
}
