/**
 * Serial consoles of `atcasim start --headless` on real PTYs: the ready line's `consoles` map, a
 * board's PTY opened from the user side (a SerialPort, as picocom opens it), the shell's commands,
 * the stable links, `clia console`, a board deactivated to M1 that stops answering and prints its
 * banner when re-activated, and cleanup of the socat processes and links on SIGTERM and SIGKILL.
 */
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SerialPort } from 'serialport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../chassis/main.ts';
import { startHeadless, TEST_ADMIN, type HeadlessEmulator } from '../support/headless.ts';

const CONSOLE_FRUS = ['shmc-a', 'shmc-b', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6'];

/** A user-side terminal on a PTY path. */
class Tty {
  got = '';
  private constructor(readonly port: SerialPort) {
    port.on('data', (b: Buffer) => (this.got += b.toString('latin1')));
  }
  static async open(path: string): Promise<Tty> {
    const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
    return new Tty(port);
  }
  write(text: string): Promise<void> {
    return new Promise((resolve, reject) => this.port.write(Buffer.from(text, 'latin1'), (e) => (e ? reject(e) : this.port.drain(() => resolve()))));
  }
  async until(from: number, re: RegExp, ms = 10_000): Promise<string> {
    const end = Date.now() + ms;
    for (;;) {
      const s = this.got.slice(from);
      if (re.test(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${re}; got ${JSON.stringify(s.slice(-300))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  async cmd(line: string, prompt: string): Promise<string> {
    const from = this.got.length;
    await this.write(`${line}\r`);
    return this.until(from, new RegExp(`\\r\\n${prompt}$`));
  }
  close(): Promise<void> {
    return new Promise((r) => this.port.close(() => r()));
  }
}

/** State letter of a process from /proc (undefined when it is gone). Z = exited (a zombie nobody reaped). */
function procState(pid: number): string | undefined {
  try {
    return /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))![1];
  } catch {
    return undefined;
  }
}

/** PIDs of the socat children of `pid`. */
function socatChildren(pid: number): number[] {
  const out: number[] = [];
  for (const line of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
    const child = Number(line);
    try {
      if (readFileSync(`/proc/${child}/cmdline`, 'utf8').startsWith('socat')) out.push(child);
    } catch {
      // already gone
    }
  }
  return out;
}

async function clia(port: number, ...args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const io = { stdout: new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) }), stderr: new Writable({ write: (_c, _e, cb) => cb() }) };
  const code = await main(['node', 'atcasim', 'clia', '-p', String(port), '-P', TEST_ADMIN.password, ...args], io);
  return { code, stdout };
}

describe('consoles of atcasim start --headless', () => {
  let emu: HeadlessEmulator;
  let runtimeDir: string;
  let tty: Tty;
  let socats: number[];

  beforeAll(async () => {
    runtimeDir = mkdtempSync(join(tmpdir(), 'atcasim-xdg-'));
    emu = await startHeadless({ stdinCommands: true, env: { XDG_RUNTIME_DIR: runtimeDir }, args: ['--hot-swap-step', '200ms'] });
    socats = socatChildren(emu.pid);
    tty = await Tty.open(emu.ready.consoles.slot3!);
  });
  afterAll(async () => {
    await tty?.close();
    if (emu) {
      emu.proc.kill('SIGTERM');
      await emu.exited;
      emu.cleanup();
    }
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  it('the ready line lists a PTY per ShMC, hub and processor board, linked at $XDG_RUNTIME_DIR/atcasim/<fru>', () => {
    expect(Object.keys(emu.ready.consoles).sort()).toEqual([...CONSOLE_FRUS].sort());
    const links = emu.ready.console_links as Record<string, string>;
    for (const fru of CONSOLE_FRUS) {
      const path = emu.ready.consoles[fru]!;
      expect(path).toMatch(/^\/dev\/pts\/\d+$/);
      expect(statSync(path).isCharacterDevice()).toBe(true);
      expect(links[fru]).toBe(join(runtimeDir, 'atcasim', fru));
      expect(lstatSync(links[fru]!).isSymbolicLink()).toBe(true);
      expect(readlinkSync(links[fru]!)).toBe(path);
    }
    expect(new Set(Object.values(emu.ready.consoles)).size).toBe(CONSOLE_FRUS.length);
    expect(socats).toHaveLength(CONSOLE_FRUS.length);
  });

  it('clia console reports the same paths over IPMI (OEM Get Console Path)', async () => {
    const one = await clia(emu.ipmi.port, 'console', 'slot3');
    const links = emu.ready.console_links as Record<string, string>;
    expect(one).toEqual({ code: 0, stdout: `slot3: ${emu.ready.consoles.slot3}\n    link: ${links.slot3}\n` });
    const all = await clia(emu.ipmi.port, 'console', '--json');
    expect(JSON.parse(all.stdout)).toEqual(CONSOLE_FRUS.map((f) => ({ fru: f, path: emu.ready.consoles[f], link: links[f] ?? null })));
  });

  it('a newline gets a prompt', async () => {
    const from = tty.got.length;
    await tty.write('\r');
    expect(await tty.until(from, /slot3> $/)).toBe('\r\nslot3> ');
  });

  it('show version, show slot, show rs, show sessions 5', async () => {
    expect(await tty.cmd('show version', 'slot3> ')).toMatch(/Firmware: +1\.05 \(atcasim IPMC\)[\s\S]*Console: +115200 8N1/);
    expect(await tty.cmd('show slot', 'slot3> ')).toMatch(/Slot: +logical 3, physical 6[\s\S]*Hot-swap state: +M4 \(Active\)[\s\S]*In service: +yes/);
    const rs = await tty.cmd('show rs', 'slot3> ');
    expect(rs).toContain('Prot LocalAddress:Port Scheduler Flags');
    expect(rs).toMatch(/^ +-> \S+ +GRE +1 +\d+ +\d+$/m); // ipvsadm -Ln's columns: Forward Weight ActiveConn InActConn
    const s = await tty.cmd('show sessions 5', 'slot3> ');
    expect(s.split('\r\n').filter((l) => /^(tcp|udp|icmp|sctp|icmpv6|gre|ipip|ipv6|\d+)\s/.test(l) && !/ shown/.test(l))).toHaveLength(5);
    expect(s).toMatch(/5 sessions shown of \d+ active/);
  });

  it('set weight changes the board\'s RS table; a bad command is one error line', async () => {
    const rs = await tty.cmd('show rs', 'slot3> ');
    const m = /^(\S+)\s+(\S+:\d+) \S+/m.exec(rs.split('\r\n').find((l) => /^(ANY|TCP|UDP|SCTP) /.test(l))!)!;
    const vip = m[2]!;
    const addr = /-> (\S+)/.exec(rs.split('\r\n').find((l) => l.includes('->') && !l.includes('RemoteAddress'))!)![1]!;
    expect(await tty.cmd(`set weight ${vip} ${addr} 0`, 'slot3> ')).toContain('set to 0 (drained');
    const after = await tty.cmd('show rs', 'slot3> ');
    expect(after).toMatch(new RegExp(`-> ${addr.replace(/[.[\]]/g, '\\$&')} +GRE +0 +\\d+ +\\d+\r`));
    expect(await tty.cmd('set weight 203.0.113.1 nobody 5', 'slot3> ')).toBe("set weight 203.0.113.1 nobody 5\r\n% no virtual service '203.0.113.1' on slot 3\r\nslot3> ");
    expect(await tty.cmd('reboot now please', 'slot3> ')).toBe('reboot now please\r\n% too many arguments; usage: reboot\r\nslot3> ');
  });

  it('reboot prints the boot banner', async () => {
    const from = tty.got.length;
    await tty.write('reboot\r');
    const out = await tty.until(from, /Type 'help' for the list of commands\.\r\nslot3> $/);
    expect(out).toMatch(/\r\n(Cold reset|Reset): restarting system\.\r\n/); // 'Reset' when the HA layer reports the node resetting
    expect(out).toMatch(/atcasim processor board firmware 1\.05 - Processor Node \(Node3\)\r\n  Example Telecom CPU-300, serial CPU0003\r\n  logical slot 3 \(physical 6\), hardware address 0x43, IPMB-0 0x86\r\n  hot-swap state M4 \(Active\), console 115200 8N1\r\n/);
  });

  it('the stable link opens the same console', async () => {
    const viaLink = await Tty.open(join(runtimeDir, 'atcasim', 'slot5'));
    try {
      expect(await viaLink.cmd('show slot', 'slot5> ')).toMatch(/IPMB-0 address: +0x8a/);
    } finally {
      await viaLink.close();
    }
  });

  it('a board deactivated to M1 stops answering; re-activated it prints its banner', async () => {
    expect(await emu.send('open-handle slot3')).toMatchObject({ ok: true, state: 'M5' });
    await tty.until(0, /System halted\.\r\n$/);
    await emu.waitFor((l) => l.event === 'hotswap' && l.fru === 'slot3' && l.to === 'M1', 10_000, 'slot3 in M1');
    const from = tty.got.length;
    await tty.write('\rshow version\r');
    await new Promise((r) => setTimeout(r, 1000));
    expect(tty.got.slice(from)).toBe('');
    expect(await emu.send('close-handle slot3')).toMatchObject({ ok: true });
    const banner = await tty.until(from, /slot3> $/);
    expect(banner).toMatch(/^\r\natcasim processor board firmware 1\.05[\s\S]*hot-swap state M4 \(Active\)[\s\S]*slot3> $/);
    expect(await tty.cmd('show slot', 'slot3> ')).toMatch(/In service: +yes/);
  });

  it('SIGTERM: clean exit, every socat ended, the stable links removed', async () => {
    await tty.close();
    const code = await emu.stop('SIGTERM');
    expect(code).toBe(0);
    for (const pid of socats) expect(['Z', undefined]).toContain(procState(pid));
    for (const fru of CONSOLE_FRUS) expect(() => lstatSync(join(runtimeDir, 'atcasim', fru))).toThrow();
    expect(() => lstatSync(join(runtimeDir, 'atcasim'))).toThrow(); // the folder it left empty too
  });
});

describe('consoles after SIGKILL of the emulator', () => {
  it('every socat exits by itself when its emulator end closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atcasim-xdg-'));
    const emu = await startHeadless({ env: { XDG_RUNTIME_DIR: dir } });
    try {
      const socats = socatChildren(emu.pid);
      expect(socats).toHaveLength(CONSOLE_FRUS.length);
      await emu.kill();
      const end = Date.now() + 5000;
      while (socats.some((p) => procState(p) !== 'Z' && procState(p) !== undefined) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      for (const pid of socats) expect(['Z', undefined]).toContain(procState(pid));
    } finally {
      emu.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
