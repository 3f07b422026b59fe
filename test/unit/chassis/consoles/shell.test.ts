// The firmware shell (pure) against a fake board: banner, every command, abbreviations, errors as
// one line, processor-only commands, and garbage that must never make it throw.
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../../board/common/errors.ts';
import { FirmwareShell, formatUptime } from '../../../../chassis/consoles/shell.ts';
import { FakeBoard } from '../../../support/console-rig.ts';

const oneErrorLine = (out: string) => {
  expect(out.endsWith('\n')).toBe(true);
  expect(out.split('\n').filter((l) => l !== '')).toHaveLength(1);
  expect(out.startsWith('% ')).toBe(true);
};

describe('FirmwareShell', () => {
  it('banner names board type, firmware, slot, addresses and the M-state; prompt is the FRU name', () => {
    const b = new FakeBoard();
    const sh = new FirmwareShell(b);
    const banner = sh.banner();
    expect(banner).toContain('processor board firmware 1.05');
    expect(banner).toContain('Processor Node (Node3)');
    expect(banner).toContain('logical slot 3 (physical 6)');
    expect(banner).toContain('IPMB-0 0x86');
    expect(banner).toContain('hot-swap state M4 (Active)');
    expect(sh.prompt()).toBe('slot3> ');
    b.state = 3;
    expect(sh.banner()).toContain('M3 (Activation In Progress)');
    expect(new FirmwareShell(new FakeBoard('shmc')).banner()).toMatch(/shelf manager firmware 1\.05 .*\n.*\n  Dedicated Shelf Manager 1, hardware address 0x08, IPMB-0 0x10/);
  });

  it('help lists every command; processor-only ones only on processor boards', () => {
    const out = new FirmwareShell(new FakeBoard()).execute('help').output;
    for (const c of ['show version', 'show slot', 'show sensors', 'show sessions [N]', 'show rs', 'show ha', 'show sel [N]', 'set weight VIP RS W', 'reboot']) expect(out).toContain(c);
    const shm = new FirmwareShell(new FakeBoard('shmc')).execute('help').output;
    expect(shm).not.toContain('show rs');
    expect(shm).toContain('show ha');
  });

  it('show version, show slot, show sensors', () => {
    const sh = new FirmwareShell(new FakeBoard());
    const v = sh.execute('show version', 3_723_000).output;
    expect(v).toMatch(/Firmware: +1\.05/);
    expect(v).toMatch(/Serial: +CPU0003/);
    expect(v).toMatch(/Uptime: +0d 01:02:03/);
    expect(v).toMatch(/Console: +115200 8N1/);
    const s = sh.execute('show slot').output;
    expect(s).toMatch(/Slot: +logical 3, physical 6/);
    expect(s).toMatch(/Hot-swap state: +M4 \(Active\)/);
    expect(s).toMatch(/IPMB-0 address: +0x86/);
    expect(s).toMatch(/In service: +yes/);
    const t = sh.execute('show sensors').output.split('\n');
    expect(t[0]).toMatch(/^Sensor +Reading +Unit +Status +LNR +LCR +LNC +UNC +UCR +UNR$/);
    expect(t[1]).toMatch(/^Node3 Temp +48\.000 +degrees C +ok +na +na +na +70\.000 +80\.000 +90\.000$/);
    expect(t[2]).toMatch(/^Node3 HotSwap +M4 +hot swap +ok$/);
  });

  it('show sessions [N] asks the board for N (default 10) and counts them', () => {
    const b = new FakeBoard();
    const sh = new FirmwareShell(b);
    const out = sh.execute('show sessions').output;
    expect(b.calls).toEqual(['sessions 10']);
    expect(out).toMatch(/^Prot +Client +Virtual server +State +Service +RS +Age +Idle$/m);
    expect(out).toMatch(/^tcp +10\.0\.0\.1:40000 +192\.0\.2\.10:80 +ESTABLISHED +web +rs1 +1\.5s +0\.1s$/m);
    expect(out).toContain('2 sessions shown of 2 active');
    expect(sh.execute('show sessions 1').output).toContain('1 session shown');
    expect(b.calls.at(-1)).toBe('sessions 1');
    for (const bad of ['show sessions 0', 'show sessions x', 'show sessions 1001', 'show sessions -1']) oneErrorLine(sh.execute(bad).output);
    oneErrorLine(sh.execute('show sessions 1 2').output);
  });

  it('show rs prints the ipvsadm -Ln layout with weights, connections and health', () => {
    const out = new FirmwareShell(new FakeBoard()).execute('show rs').output;
    expect(out).toContain('Prot LocalAddress:Port Scheduler Flags');
    expect(out).toContain('  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn');
    expect(out).toMatch(/^TCP +192\.0\.2\.10:80 wlc$/m);
    expect(out).toMatch(/^ +-> 10\.200\.0\.1:80 +Tunnel +1 +7 +3$/m);
    expect(out).toMatch(/^ +-> 10\.200\.0\.2:80 +Tunnel +2 +0 +1$/m);
    // effective weight and health below, beyond ipvsadm's columns
    expect(out).toMatch(/^ +-> 10\.200\.0\.1:80 +1 +up$/m);
    expect(out).toMatch(/^ +-> 10\.200\.0\.2:80 +2 +down$/m);
  });

  it('show ha and show sel [N]', () => {
    const sh = new FirmwareShell(new FakeBoard());
    const ha = sh.execute('show ha').output;
    expect(ha).toMatch(/^lb1\/slot3 +active +3 +120 ms ago +4500 ms left +-$/m);
    const sel = sh.execute('show sel').output.trimEnd().split('\n');
    expect(sel).toHaveLength(2);
    expect(sel[0]).toBe('   1 | 2025-01-01 00:00:00 | FRU Hot Swap Node3 HotSwap | Transition to M4 | Asserted');
    expect(sh.execute('show sel 1').output.trim().split('\n')).toHaveLength(1);
    oneErrorLine(sh.execute('show sel zero').output);
  });

  it('set weight VIP RS W validates W and reports the board refusal in one line', () => {
    const b = new FakeBoard();
    const sh = new FirmwareShell(b);
    expect(sh.execute('set weight 192.0.2.10 rs1 5').output).toBe('weight of rs1 in 192.0.2.10 set to 5\n');
    expect(b.weights.get('rs1')).toBe(5);
    expect(sh.execute('set weight web rs1 0').output).toContain('drained');
    oneErrorLine(sh.execute('set weight 198.51.100.1 rs1 5').output);
    expect(sh.execute('set weight 198.51.100.1 rs1 5').output).toBe("% no virtual service '198.51.100.1' on slot 3\n");
    for (const bad of ['set weight web rs1', 'set weight web rs1 65536', 'set weight web rs1 -1', 'set weight web rs1 1.5', 'set weight']) oneErrorLine(sh.execute(bad).output);
  });

  it('reboot asks the board for a cold reset; a refusal is one line', () => {
    const b = new FakeBoard();
    const sh = new FirmwareShell(b);
    expect(sh.execute('reboot')).toEqual({ output: 'Restarting system.\n', reboot: true });
    expect(b.calls).toContain('reboot');
    b.rebootError = new CommandError('comm_lost', 'slot3 does not answer (M7)');
    const r = sh.execute('reboot');
    expect(r.reboot).toBeUndefined();
    expect(r.output).toBe('% slot3 does not answer (M7)\n');
    oneErrorLine(sh.execute('reboot now').output);
  });

  it('abbreviations resolve to a unique command; ambiguous, incomplete and unknown ones are one-line errors', () => {
    const sh = new FirmwareShell(new FakeBoard());
    expect(sh.execute('sh ver').output).toMatch(/Firmware:/);
    expect(sh.execute('SHOW SLOT').output).toMatch(/Hot-swap state:/);
    expect(sh.execute('  show   sessions   2 ').output).toContain('2 sessions shown');
    for (const bad of ['show se', 'show', 's', 'frobnicate', 'show nothing', 'set', 'set colour blue']) oneErrorLine(sh.execute(bad).output);
    expect(sh.execute('show se').output).toContain('ambiguous');
    expect(sh.execute('frobnicate').output).toBe(`% unknown command "frobnicate"; type 'help' for the list of commands\n`);
    expect(sh.execute('').output).toBe('');
    expect(sh.execute('   ').output).toBe('');
  });

  it('processor-only commands are refused in one line on a shelf manager or hub', () => {
    for (const kind of ['shmc', 'hub'] as const) {
      const sh = new FirmwareShell(new FakeBoard(kind));
      for (const c of ['show rs', 'show sessions', 'set weight web rs1 1']) {
        const out = sh.execute(c).output;
        oneErrorLine(out);
        expect(out).toContain('processor boards only');
      }
      expect(sh.execute('show version').output).toMatch(/Firmware:/);
    }
  });

  it('a board that throws anything is reported, never thrown', () => {
    const b = new FakeBoard();
    b.sensors = () => {
      throw new Error('bus timeout');
    };
    const sh = new FirmwareShell(b);
    expect(sh.execute('show sensors').output).toBe('% internal error: bus timeout\n');
  });

  it('random lines never throw and unknown input is always exactly one error line', () => {
    let seed = 99;
    const rnd = (n: number) => ((seed = (seed * 1664525 + 1013904223) >>> 0) % n);
    const words = ['show', 'sh', 'set', 'weight', 'rs', 'ha', 'sel', 'slot', 'reboot', 'x', '%s', '0', '65535', '-1', '"', '\\'];
    const sh = new FirmwareShell(new FakeBoard());
    for (let i = 0; i < 3000; i++) {
      const line = Array.from({ length: rnd(5) }, () => (rnd(3) === 0 ? String.fromCharCode(0x20 + rnd(95)).repeat(1 + rnd(3)) : words[rnd(words.length)]!)).join(' ');
      const r = sh.execute(line);
      expect(typeof r.output).toBe('string');
      if (r.output.startsWith('% ')) oneErrorLine(r.output);
    }
  });

  it('formats uptime as days and hh:mm:ss', () => {
    expect(formatUptime(0)).toBe('0d 00:00:00');
    expect(formatUptime(90_061_000)).toBe('1d 01:01:01');
  });
});
