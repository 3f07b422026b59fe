// The consoles of a running emulator in simulated time: the shell against the real shelf and data
// plane, and the console's life following hot swap, resets, faults, chassis power and hangs.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../../chassis/runtime/emulator.ts';
import type { SimClock } from '../../../../board/common/sim-clock.ts';
import { haFactory } from '../../../../chassis/runtime/ha-part.ts';
import { simulatedHa } from '../../../support/ha-fakes.ts';
import { simEmulator, Terminal } from '../../../support/console-rig.ts';

let em: Emulator | undefined;
afterEach(async () => {
  await em?.stop();
  em = undefined;
});

async function setup(): Promise<{ em: Emulator; clock: SimClock; term: (name: string) => Terminal }> {
  const r = await simEmulator();
  em = r.em;
  r.clock.advance(1500); // traffic flows, sessions exist
  return { em: r.em, clock: r.clock, term: (name) => new Terminal(r.em.consoles!.mux.get(name)!) };
}

describe('ConsoleMux over the default shelf', () => {
  it('has a console for each ShMC, hub and processor board, none for fans and PEMs', async () => {
    const { em } = await setup();
    expect(em.consoles!.mux.names()).toEqual(['shmc-a', 'shmc-b', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6']);
    expect(em.consoles!.mux.get('fan1')).toBeUndefined();
    expect(() => em.consoles!.mux.require('fan1')).toThrow(/no console/);
    expect(em.consoles!.mux.require('3').name).toBe('slot3');
    expect(em.consoles!.mux.lineSettings('slot3')).toMatchObject({ baud: 115200, framing: '8N1' });
  });

  it('runs the commands against the real shelf and data plane', async () => {
    const { em, term } = await setup();
    const t = term('slot3');
    expect(t.type('\r')).toBe('\r\nslot3> ');
    expect(t.type('show slot\r')).toMatch(/Hot-swap state: +M4 \(Active\)[\s\S]*In service: +yes[\s\S]*Sessions: +[1-9]\d*\r\nslot3> $/);
    const sessions = t.type('show sessions 5\r');
    expect(sessions).toContain('5 sessions shown of');
    expect(sessions.split('\r\n').filter((l) => /^(tcp|udp|icmp|sctp|icmpv6|gre|ipip|ipv6|\d+)\s/.test(l) && !/ shown/.test(l))).toHaveLength(5);
    const rs = t.type('show rs\r');
    const table = em.rsTable(3)!;
    const svc = table.services[0]!;
    expect(rs).toContain(`${svc.protocol.padEnd(4)} ${svc.vip}:${svc.port} ${svc.scheduler}`);
    expect(rs).toContain(`  -> ${svc.realServers[0]!.address}`);
    // set weight by VIP:port and RS address as `show rs` prints them, on this board only
    const r0 = svc.realServers[0]!;
    expect(t.type(`set weight ${svc.vip}:${svc.port} ${r0.address} 7\r`)).toContain(`set to 7`);
    expect(em.rsTable(3)!.services[0]!.realServers[0]!.weight).toBe(7);
    expect(em.rsTable(4)!.services[0]!.realServers[0]!.weight).not.toBe(7);
    expect(t.type(`set weight ${svc.name} ${r0.name} 0\r`)).toContain('drained');
    expect(em.rsTable(3)!.services[0]!.realServers[0]!.weight).toBe(0);
    expect(t.type('set weight 203.0.113.99 rs1 3\r')).toMatch(/^set weight 203\.0\.113\.99 rs1 3\r\n% no virtual service '203\.0\.113\.99' on slot 3\r\nslot3> $/);
    expect(t.type('show sel 3\r').split('\r\n').filter((l) => / \| /.test(l))).toHaveLength(3);
    expect(t.type('show sensors\r')).toMatch(/Node3 CPU Temp +55\.000 +degrees C +ok/);
    expect(term('shmc-a').type('show slot\r')).toMatch(/Shelf manager: +active \(answers 0x20\)/);
    expect(term('shmc-b').type('show slot\r')).toMatch(/Shelf manager: +not active/);
  });

  it('reboot: a cold reset takes the board out of service, the console is silent, then the banner', async () => {
    const { em, clock, term } = await setup();
    const t = term('slot3');
    expect(t.type('reboot\r')).toBe('reboot\r\n\r\nCold reset: restarting system.\r\n');
    expect(em.dataPlane.isInService(3)).toBe(false);
    expect(t.type('show slot\r')).toBe(''); // not answering while it restarts
    clock.advance(250);
    expect(em.dataPlane.isInService(3)).toBe(true);
    expect(t.out).toMatch(/restarting system\.\r\n\r\natcasim processor board firmware 1\.05 - Processor Node \(Node3\)\r\n.*\r\n.*logical slot 3 \(physical 6\).*\r\n.*M4 \(Active\).*\r\nType 'help' for the list of commands\.\r\nslot3> $/s);
    expect(t.type('show version\r')).toMatch(/Uptime: +0d 00:00:00/);
    expect(em.consoles!.mux.get('slot3')!.counters.boots).toBe(1);
  });

  it('a board deactivated to M1 stops answering; re-activated it prints its banner', async () => {
    const { em, clock, term } = await setup();
    const t = term('slot4');
    em.commands.openHandle('slot4');
    expect(t.out).toContain('Hot swap: deactivation requested');
    clock.advance(1000);
    expect(em.shelf.state('slot4')).toBe(1);
    expect(t.out).toContain('Deactivation in progress: shutting down the payload.\r\nSystem halted.\r\n');
    const mark = t.out.length;
    expect(t.type('\rshow version\r')).toBe('');
    em.commands.closeHandle('slot4');
    clock.advance(1000);
    expect(em.shelf.state('slot4')).toBe(4);
    expect(t.since(mark)).toMatch(/^\r\natcasim processor board firmware .*hot-swap state M4 \(Active\).*slot4> $/s);
    expect(t.type('\r')).toBe('\r\nslot4> ');
  });

  it('extraction silences the console, insertion boots it; a payload fault prints a panic and halts', async () => {
    const { em, clock, term } = await setup();
    const t5 = term('slot5');
    em.commands.extract('slot5');
    expect(t5.type('\r')).toBe('');
    em.commands.insert('slot5');
    clock.advance(1000);
    expect(em.shelf.state('slot5')).toBe(4);
    expect(t5.out).toMatch(/atcasim processor board firmware/);
    const t6 = term('slot6');
    em.commands.injectFault('slot6', 'payload');
    expect(t6.out).toContain('*** payload fault: Kernel panic - not syncing ***');
    clock.advance(1000);
    expect(t6.type('\r')).toBe('');
  });

  it('chassis power off halts the boards but not the shelf managers; power on boots them', async () => {
    const { em, clock, term } = await setup();
    const hub = term('slot1');
    const shm = term('shmc-a');
    em.shelf.chassis.control('off');
    clock.advance(1000);
    expect(hub.out).toContain('System halted.');
    expect(hub.type('\r')).toBe('');
    expect(shm.type('\r')).toBe('\r\nshmc-a> ');
    em.shelf.chassis.control('on');
    clock.advance(1000);
    expect(hub.out).toMatch(/hub \(switch\) board firmware .*slot1> $/s);
  });

  it('a hung board neither echoes nor answers; heal resumes without a banner', async () => {
    const { em, term } = await setup();
    const t = term('slot3');
    em.consoles!.setHung('slot3', true);
    expect(t.type('show version\r')).toBe('');
    em.consoles!.setHung('3', false);
    expect(t.type('\r')).toBe('\r\nslot3> ');
    expect(em.consoles!.mux.get('slot3')!.counters.boots).toBe(0);
    em.consoles!.setHung('nonsense', true); // unknown nodes are ignored
  });

  it('HA roles: resetting silences the node, booting after it prints the banner (ends a hang)', async () => {
    const { em, term } = await setup();
    const t = term('slot3');
    em.consoles!.setHung('slot3', true);
    em.shelf.roles.set('slot3', 'resetting', 1);
    expect(t.type('\r')).toBe('');
    em.shelf.roles.set('slot3', 'booting', 2);
    expect(t.out).toMatch(/processor board firmware .*slot3> $/s);
    expect(t.type('\r')).toBe('\r\nslot3> ');
  });

  it('with the HA part: an operator hang silences the board; its watchdog resets it and the banner comes back', async () => {
    const r = await simEmulator({ ha: haFactory({ seed: 1, env: () => simulatedHa().env }) });
    em = r.em;
    r.clock.advance(3000);
    const t = new Terminal(r.em.consoles!.mux.get('slot3')!);
    r.em.commands.hang('slot3');
    expect(t.type('show version\r')).toBe('');
    const roles: string[] = [];
    r.em.shelf.on('role', (e) => {
      if (e.node === 'slot3') roles.push(e.role);
    });
    for (let i = 0; i < 100 && !/slot3> $/.test(t.out); i++) r.clock.advance(100);
    expect(roles).toContain('resetting');
    expect(t.out).toMatch(/^\r\natcasim processor board firmware 1\.05 - Processor Node \(Node3\)[\s\S]*slot3> $/); // a hung board printed nothing before its banner
    expect(t.type('\r')).toBe('\r\nslot3> ');
  });

  it('with the HA part: show ha lists the node\'s roles with heartbeat and watchdog figures', async () => {
    const r = await simEmulator({ ha: haFactory({ seed: 3, env: () => simulatedHa().env }) });
    em = r.em;
    r.clock.advance(3000);
    const out = new Terminal(r.em.consoles!.mux.get('slot3')!).type('show ha\r');
    expect(out).toMatch(/Key +Role +Epoch +Heartbeat +Watchdog +Alarms/);
    expect(out).toMatch(/^lb1\/slot3 +active +\d+ +\d+ ms ago /m);
    expect(out).toMatch(/^lb1\/slot4 +standby\.hot +\d+ +\d+ ms ago /m);
    expect(new Terminal(r.em.consoles!.mux.get('shmc-b')!).type('show ha\r')).toMatch(/^shmc-b +standby\.hot +\d+ /m);
  });

  it('with the HA part: reboot restarts the console once, though the node holds two roles', async () => {
    const r = await simEmulator({ ha: haFactory({ seed: 2, env: () => simulatedHa().env }) });
    em = r.em;
    r.clock.advance(3000);
    const t = new Terminal(r.em.consoles!.mux.get('slot5')!);
    t.type('reboot\r');
    for (let i = 0; i < 30; i++) r.clock.advance(100);
    expect(t.out.match(/atcasim processor board firmware/g)).toHaveLength(1);
    expect(t.out).toMatch(/reboot\r\n\r\n(Reset|Cold reset): restarting system\.\r\n\r\natcasim/);
    expect(t.type('\r')).toBe('\r\nslot5> ');
  });

  it('FRU Control diagnostic interrupt prints a notice with the prompt and the partial line', async () => {
    const { em, term } = await setup();
    const t = term('slot3');
    t.type('show ver');
    em.shelf.payload.control('slot3', 'diagnostic-interrupt');
    expect(t.out.endsWith('\r\nNMI: diagnostic interrupt received (FRU Control).\r\nslot3> show ver')).toBe(true);
    expect(t.type('sion\r')).toContain('Firmware:');
  });

  it('garbage typed into a live console never breaks it', async () => {
    const { term } = await setup();
    const t = term('slot2');
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    for (let i = 0; i < 300; i++) t.type(String.fromCharCode(...Array.from({ length: 1 + (rnd() % 40) }, rnd)));
    t.type('\x15');
    expect(t.type('\rshow slot\r')).toMatch(/IPMB-0 address: +0x84/);
  });

  it('keeps a bounded scrollback of what it printed', async () => {
    const { em, term } = await setup();
    const t = term('slot3');
    for (let i = 0; i < 50; i++) t.type('show rs\r');
    const sb = em.consoles!.mux.get('slot3')!.scrollback();
    expect(sb.length).toBeLessThanOrEqual(16384);
    expect(t.out.endsWith(sb)).toBe(true);
  });

  it('a failing PTY edge is logged and the emulator runs on with SOL-only consoles', async () => {
    const r = await simEmulator({
      consoles: {
        expose: () => Promise.reject(new Error('cannot start socat: spawn socat ENOENT')),
      },
    });
    em = r.em;
    expect(r.em.endpoints.consoles).toEqual({});
    expect(r.em.consoles!.mux.names()).toHaveLength(8);
    expect(r.em.consoles!.sol).toBeDefined();
    expect(r.log.records.some((l) => l.level === 'error' && String(l.msg).includes('consoles not exposed on PTYs'))).toBe(true);
  });

  it('consoles: false leaves them out (no SOL, no payload commands)', async () => {
    const r = await simEmulator({ consoles: false });
    em = r.em;
    expect(r.em.consoles).toBeUndefined();
    expect(r.em.lanServer!.lanCommands.lookup(0x06, 0x48)).toBeUndefined();
  });
});
