/**
 * The TUI view model as a pure function: inputs are a real emulator's view bundle (simulated
 * time, test/unit/ui/fixture.ts); outputs are checked for layout (every line fits 80×24 and
 * larger terminals), the front view in physical order with board types, M-states and their
 * colours, roles, LEDs, traffic figures and sparklines, the detail pane (identity, sensors with
 * thresholds, FRU data, session-table fill and hot hit ratio, the RS table), the event pane (SEL
 * text shortened, newest at the bottom) and the status line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimClock } from '../../../board/common/sim-clock.ts';
import type { FeedEntry } from '../../../chassis/runtime/event-feed.ts';
import type { Emulator } from '../../../chassis/runtime/emulator.ts';
import type { EmulatorView } from '../../../chassis/runtime/view.ts';
import {
  buildViewModel,
  compact,
  computeLayout,
  eventText,
  fit,
  FRONT_ROWS,
  HELP_LINES,
  lineText,
  M_STATE_COLOR,
  selectionOrder,
  sparkline,
  type Line,
  type ViewModel,
} from '../../../ui/view-model.ts';
import { simEmulator, ui } from './fixture.ts';

let em: Emulator;
let clock: SimClock;

beforeAll(async () => {
  ({ em, clock } = await simEmulator());
});
afterAll(async () => {
  await em?.stop();
});

function vmOf(view: EmulatorView, over: Parameters<typeof ui>[0] = {}): ViewModel {
  const u = ui(over);
  const m = /^slot(\d+)$/.exec(u.selected);
  const rs = m ? em.rsTable(Number(m[1])) : undefined;
  return buildViewModel({ view, ui: u, ...(rs ? { rsTable: rs } : {}) });
}

function width(l: Line): number {
  return [...lineText(l)].length;
}

/** Cells of a front row by the columns of the slot row. */
function frontCells(vm: ViewModel): Map<string, string[]> {
  const rows = vm.front.map(lineText);
  const slotRow = rows[FRONT_ROWS.indexOf('slot')]!;
  const starts = [...slotRow.slice(6).matchAll(/\S+/g)].map((m) => 6 + m.index!);
  const out = new Map<string, string[]>();
  FRONT_ROWS.forEach((label, r) => {
    const t = rows[r]!;
    out.set(label, starts.map((s, i) => t.slice(s, starts[i + 1]).trim()));
  });
  return out;
}

describe('helpers', () => {
  it('compact numbers fit in 4 characters', () => {
    expect([0, 7, 950, 1234, 9949, 12_345, 999_000, 1_234_567, 45_600_000].map(compact)).toEqual(['0', '7', '950', '1.2k', '9.9k', '12k', '999k', '1.2M', '46M']);
    for (const n of [1, 999, 9999, 99_999, 999_499, 9_999_999, 99_999_999]) expect(compact(n).length).toBeLessThanOrEqual(4);
    expect(compact(-5)).toBe('0');
    expect(compact(NaN)).toBe('0');
  });

  it('sparkline scales to the shared maximum, newest at the right', () => {
    expect(sparkline([0, 5, 10], 3, 10)).toBe(' ▄█');
    expect(sparkline([10], 4, 10)).toBe('   █');
    expect(sparkline([1, 2, 3, 4, 5, 6], 2, 6)).toBe('▇█');
    expect(sparkline([0.01], 1, 100)).toBe('▁'); // any traffic shows
    expect(sparkline([], 3, 0)).toBe('   ');
  });

  it('fit clips with an ellipsis and pads', () => {
    expect(lineText(fit([{ text: 'abc' }, { text: 'def' }], 4))).toBe('abc…');
    expect(lineText(fit([{ text: 'ab' }], 5, true))).toBe('ab   ');
    expect(lineText(fit([{ text: 'abcde' }], 5))).toBe('abcde');
  });

  it('every M-state has its own colour', () => {
    expect(new Set(Object.values(M_STATE_COLOR)).size).toBe(8);
  });

  it('layout at 80×24 and 160×50', () => {
    const a = computeLayout(80, 24, 14);
    expect(a).toMatchObject({ width: 80, height: 24, colWidth: 5, frontTop: 1, mgmtRow: 10, paneTop: 11, messageRow: 22, statusRow: 23 });
    expect(a.detailWidth + a.eventsWidth).toBe(80);
    expect(a.paneTop + a.paneHeight).toBe(a.messageRow);
    const b = computeLayout(160, 50, 14);
    expect(b.colWidth).toBe(10);
    expect(b.paneHeight).toBe(37);
  });
});

describe('buildViewModel', () => {
  it('fits 80×24: every line within its width, 9 front rows, the right number of event lines', () => {
    const vm = vmOf(em.view());
    expect(vm.front).toHaveLength(9);
    for (const l of [vm.title, ...vm.front, vm.mgmt, vm.message, vm.status]) expect(width(l)).toBe(80);
    for (const l of [vm.detailTitle, ...vm.detail]) expect(width(l)).toBeLessThan(vm.layout.detailWidth);
    for (const l of [vm.eventsTitle, ...vm.events]) expect(width(l)).toBeLessThan(vm.layout.eventsWidth);
    expect(vm.events.length).toBeLessThanOrEqual(vm.layout.paneHeight - 1);
  });

  it('front view: 14 slots in physical order, board types, M4, traffic and sessions on processor boards', () => {
    const c = frontCells(vmOf(em.view()));
    expect(c.get('pos')).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14']);
    expect(c.get('slot')).toEqual(['13', '11', '9', '7', '5', '3', '1', '2', '4', '6', '8', '10', '12', '14']);
    expect(c.get('board')).toEqual(['--', '--', '--', '--', 'proc', 'proc', 'hub', 'hub', 'proc', 'proc', '--', '--', '--', '--']);
    expect(c.get('state')).toEqual(['', '', '', '', 'M4', 'M4', 'M4', 'M4', 'M4', 'M4', '', '', '', '']);
    const pps = c.get('pkt/s')!;
    for (const i of [4, 5, 6, 7, 8, 9]) expect(pps[i]).toMatch(/^\d+(\.\d)?k$/);
    const sess = c.get('sess')!;
    expect(sess[6]).toBe('-'); // hubs are stateless
    expect(Number(sess[5]!.replace('k', '')) > 0 || sess[5]!.endsWith('k')).toBe(true);
    expect(c.get('LED')!.slice(4, 10)).toEqual(['○', '○', '○', '○', '○', '○']); // blue LED off in M4
    expect(c.get('load')![5]).toMatch(/[▁▂▃▄▅▆▇█]/);
  });

  it('colours the state cell per M-state and follows a deactivation', () => {
    em.commands.openHandle('slot4');
    const at5 = vmOf(em.view());
    const stateRow = at5.front[FRONT_ROWS.indexOf('state')]!;
    const m5 = stateRow.find((s) => s.text.trim() === 'M5');
    expect(m5?.fg).toBe(M_STATE_COLOR[5]);
    expect(frontCells(at5).get('LED')![8]).toBe('◑'); // short blink in M5
    clock.advance(2500);
    const at1 = vmOf(em.view());
    expect(frontCells(at1).get('state')![8]).toBe('M1');
    expect(at1.front[FRONT_ROWS.indexOf('state')]!.find((s) => s.text.trim() === 'M1')?.fg).toBe(M_STATE_COLOR[1]);
    expect(frontCells(at1).get('LED')![8]).toBe('●'); // blue LED on: safe to pull
    // the event pane shows the SEL records, newest at the bottom
    expect(at1.events.slice(-3).map(lineText).map((t) => t.replace(/^\d\d:\d\d:\d\d /, ''))).toEqual(['Node4 HotSwap → M5', 'Node4 HotSwap → M6', 'Node4 HotSwap → M1']);
    em.commands.closeHandle('slot4');
    clock.advance(4000);
    expect(frontCells(vmOf(em.view())).get('state')![8]).toBe('M4');
  });

  it('marks the selection and details the selected board (identity, traffic, sessions, sensors, FRU, RS table)', () => {
    const vm = vmOf(em.view(), { width: 160, height: 80 });
    const slotRow = vm.front[FRONT_ROWS.indexOf('slot')]!;
    expect(slotRow.filter((s) => s.inverse).map((s) => s.text.trim())).toEqual(['3']);
    expect(lineText(vm.detailTitle)).toMatch(/^ slot3 {2}Node3/);
    const d = vm.detail.map(lineText);
    expect(d[0]).toBe('Node3 processor board, slot 3 pos 6, IPMB 0x86');
    expect(d[1]).toMatch(/^M4 Active/);
    expect(d.join('\n')).toMatch(/^HA off \(started with --no-ha\)/m);
    expect(d.join('\n')).toMatch(/^traffic \S+ pkt\/s/m);
    expect(d.join('\n')).toMatch(/^sessions [\d,]+\/4,096 \(\d+\.\d%\) {2}hot hit \d+\.\d%$/m);
    // without HA session sync there is no split by age; the data plane's own total keeps its label
    expect(d.join('\n')).toMatch(/^shelf lost n\/a {2}data plane lost [\d,]+$/m);
    expect(d.join('\n')).toMatch(/^Node3 Temp\s+48 C\s+ok unc 70 uc 80 unr 90$/m);
    expect(d.join('\n')).toMatch(/^Node3 12V\s+12 V\s+ok lc 10\.8 lnc 11\.4 unc 12\.6 uc 13\.2$/m);
    expect(d.join('\n')).toMatch(/^Node3 HotSwap\s+M4$/m);
    expect(d.join('\n')).toMatch(/^FRU Example Telecom, Processor Node, serial CPU0003, part CPU-300$/m);
    expect(d.join('\n')).toMatch(/^console 115200 8N1 {2}PTY not available yet$/m);
    expect(d.join('\n')).toMatch(/^RS table \(ipvsadm -Ln\)$/m);
    expect(d.join('\n')).toMatch(/^ANY {2}0\.0\.0\.0\/0:0 dynamic$/m);
    expect(d.join('\n')).toMatch(/^ {2}-> 10\.200\.0\.1 {4}GRE \S+\s+\d+\s+\d+ up$/m);
    expect(d.join('\n')).toMatch(/^ANY {2}::\/0:0 dynamic$/m);
  });

  it('details a hub, an empty slot and a management FRU', () => {
    const hub = vmOf(em.view(), { selected: 'slot1', width: 160, height: 60 }).detail.map(lineText).join('\n');
    expect(hub).toMatch(/^Hub1 hub \(switch\) board, slot 1 pos 7, IPMB 0x82$/m);
    expect(hub).toMatch(/^ports 3:up 4:up 5:up 6:up/m);
    const empty = vmOf(em.view(), { selected: 'slot7' });
    expect(lineText(empty.detailTitle)).toContain('empty slot');
    expect(empty.detail.map(lineText)).toEqual(['slot7: empty node slot at physical position 4', 'hardware address 0x47, IPMB-0 0x8e']);
    const shmc = vmOf(em.view(), { selected: 'shmc-b' });
    expect(shmc.mgmt.find((s) => s.inverse)?.text).toBe('ShMC-B');
    expect(lineText(shmc.detailTitle)).toBe(' ShMC-B  shelf manager');
    const msg = vmOf(em.view(), { selected: 'shmc-b', message: { text: 'shmc-b: hung (stops feeding its watchdog)', level: 'info' } });
    expect(lineText(msg.message)).toMatch(/^» ShMC-B: hung/);
    expect(shmc.detail.map(lineText)[0]).toBe('ShMC-B shelf manager, site 2, IPMB 0x12');
  });

  it('shows HA roles from the snapshot: front cell, colours, detail line', () => {
    em.shelf.roles.set('slot5', 'active', 2, { share: 'lb2/slot5' });
    em.shelf.roles.set('slot5', 'standby.hot', 2, { share: 'lb2/slot6' });
    em.shelf.roles.set('shmc-a', 'active', 1);
    const narrow = vmOf(em.view(), { selected: 'slot5' });
    expect(frontCells(narrow).get('HA')![4]).toBe('act'); // slot5 at position 5: its home share
    expect(narrow.front[FRONT_ROWS.indexOf('HA')]!.find((s) => s.text.trim() === 'act')?.fg).toBe('green');
    const vm = vmOf(em.view(), { selected: 'slot5', width: 160 });
    expect(vm.detail.map(lineText).join('\n')).toMatch(/^HA lb2\/slot5 active epoch 2, lb2\/slot6 standby\.hot epoch 2$/m);
    expect(lineText(vm.mgmt)).toMatch(/ShMC-A M4 act/);
    const wide = vmOf(em.view(), { width: 160, height: 40 });
    expect(frontCells(wide).get('HA')![4]).toBe('act/hot');
  });

  it('event text: hot swap shortened, faults name their source, deassertions say so', () => {
    const base: FeedEntry = { recordId: 1, selTime: 0, source: 'slot3', text: '', deasserted: false, sensorType: 0xf0 };
    expect(eventText({ ...base, text: 'FRU Hot Swap Node3 HotSwap | Transition to M5 | Asserted', mState: 5 })).toBe('Node3 HotSwap → M5');
    expect(eventText({ ...base, sensorType: 0x15, text: 'Module/Board #0xff | Transition to Critical from less severe | Asserted' })).toBe('slot3 Module/Board → Critical from less severe');
    expect(eventText({ ...base, sensorType: 0x01, deasserted: true, text: 'Temperature Node3 Temp | Upper Critical going high | Deasserted | Reading 81 > Threshold 80 (raw)' })).toBe(
      'Node3 Temp Upper Critical going high (deasserted)',
    );
  });

  it('event pane follows a fault and its repair, with record IDs on wide terminals', () => {
    em.commands.injectFault('slot6');
    clock.advance(3000);
    let vm = vmOf(em.view(), { width: 160, height: 80 });
    const ev = vm.events.map(lineText);
    expect(ev.some((t) => /^[0-9a-f]{4} \d\d:\d\d:\d\d slot6 {2}Node6 Health → Critical from less severe$/.test(t))).toBe(true);
    expect(ev.some((t) => /^[0-9a-f]{4} \d\d:\d\d:\d\d ShMC-B ShMC HotSwap → M4$/.test(t))).toBe(true);
    expect(ev.some((t) => t.endsWith('Node6 HotSwap → M1'))).toBe(true);
    expect(vm.detail).toBeDefined();
    vm = vmOf(em.view(), { selected: 'slot6', width: 160 });
    expect(vm.detail.map(lineText)[2]).toMatch(/FAULT payload/);
    em.commands.repair('slot6');
    clock.advance(4000);
    expect(em.shelf.state('slot6')).toBe(4);
  });

  it('status line: shelf totals, active ShMC, IPMI address, key hint; message line colours', () => {
    const view = { ...em.view(), endpoints: { ipmi: '127.0.0.1:6230', consoles: {} } };
    const vm = vmOf(view, { message: { text: 'slot7: slot7 is empty', level: 'error' } });
    expect(lineText(vm.status)).toMatch(/^total \S+ pkt\/s {2}\S+ sess {2}lost n\/a {2}active ShMC-A {2}IPMI 127\.0\.0\.1:6230\s+\? help$/);
    expect(vm.message[0]).toMatchObject({ text: expect.stringContaining('» slot7: slot7 is empty'), fg: 'red' });
    expect(lineText(vm.title)).toMatch(/^ atcasim {2}atcasim-default \| bundled @ 20k pkt\/s \| SEL clock \d\d:\d\d:\d\d UTC/);
  });

  it('help overlay lines when asked', () => {
    expect(vmOf(em.view()).help).toBeUndefined();
    const vm = vmOf(em.view(), { help: true });
    expect(vm.help?.map(lineText)).toEqual([...HELP_LINES]);
  });

  it('selection order: front slots left to right, then ShMCs, fans, PEMs', () => {
    expect(selectionOrder(em.view().snapshot)).toEqual([
      'slot13', 'slot11', 'slot9', 'slot7', 'slot5', 'slot3', 'slot1', 'slot2', 'slot4', 'slot6', 'slot8', 'slot10', 'slot12', 'slot14',
      'shmc-a', 'shmc-b', 'fan1', 'fan2', 'fan3', 'pem1', 'pem2',
    ]);
  });

  it('is pure: the same input gives the same output', () => {
    const view = em.view();
    expect(vmOf(view)).toEqual(vmOf(view));
  });

  describe('lost split by age (young / established, the LostByAge of atcasim status)', () => {
    const withLost = (young: number, established: number): EmulatorView => ({
      ...em.view(),
      lostByAge: { young, established, establishedMs: 1500 },
      endpoints: { ipmi: '127.0.0.1:6230', consoles: {} },
    });

    it('footer: the split in full at 80 columns and wider, established in red only when some were lost', () => {
      for (const [w, h] of [[80, 24], [200, 50]] as const) {
        const vm = vmOf(withLost(12, 0), { width: w, height: h });
        const text = lineText(vm.status);
        expect(text).toContain(w >= 200 ? '  lost 12 young / 0 est  ' : '  lost 12y/0e  ');
        expect(text).toContain('ShMC-A');
        expect(text).not.toContain('…');
        expect(vm.status.find((s) => s.text.includes('lost'))?.fg).toBeUndefined();
      }
      const bad = vmOf(withLost(3, 2), { width: 200, height: 50 });
      expect(bad.status.find((s) => s.text.includes('lost'))).toMatchObject({ text: '  lost 3 young / 2 est', fg: 'red' });
    });

    it('footer: abbreviates the split, then drops the IPMI address, rather than cutting the counts', () => {
      const big = withLost(34_567, 1_234);
      const at80 = lineText(vmOf(big, { width: 80 }).status);
      expect(at80).toMatch(/lost 35k young \/ 1234 est|lost 35ky\/1234e/);
      const at60 = lineText(vmOf(big, { width: 60 }).status);
      expect(at60).toContain('lost 35ky/1234e');
      expect(at60).not.toContain('IPMI');
      expect(at60).not.toContain('…');
    });

    it('detail pane: the shelf split beside the board data-plane total, split over two lines when narrow', () => {
      const wide = vmOf(withLost(12, 0), { width: 200, height: 50 }).detail.map(lineText);
      expect(wide.join('\n')).toMatch(/^shelf lost 12 young \/ 0 est {2}data plane lost [\d,]+$/m);
      const narrow = vmOf(withLost(12, 0), { width: 80 }).detail.map(lineText);
      const i = narrow.findIndex((x) => x.startsWith('shelf lost'));
      expect(narrow[i]).toMatch(/^shelf lost 12 (young \/ 0 est|y\/0e)/);
      expect(narrow.join('\n')).toMatch(/data plane lost [\d,]+$/m);
      expect(narrow.join('\n')).not.toMatch(/lost[^\n]*…/);
    });
  });

  it('80×24: HA roles, watchdog, sync lag and alarms wrap whole instead of being cut', () => {
    em.shelf.roles.set('slot3', 'active', 4, { share: 'lb1/slot3' });
    em.shelf.roles.set('slot3', 'standby.hot', 4, { share: 'lb1/slot4' });
    const view: EmulatorView = {
      ...em.view(),
      ha: [{ share: 'lb1/slot3', node: 'slot3', role: 'active', epoch: 4, heartbeatAgeMs: 123, watchdogMs: 800, syncLagMs: 12, alarms: ['REDUNDANCY_LOST'] }],
    };
    for (const [w, h] of [[80, 24], [200, 50]] as const) {
      const vm = vmOf(view, { width: w, height: h, selected: 'slot3' });
      const d = vm.detail.map(lineText).join('\n');
      const narrow = w < 100;
      const wants = ['lb1/slot3 active epoch 4', 'lb1/slot4 standby.hot epoch 4', narrow ? 'hb 123 ms' : 'heartbeat 123 ms ago', narrow ? 'wd 0.8 s' : 'watchdog 0.8 s', narrow ? 'lag 12 ms' : 'sync lag 12 ms', 'REDUNDANCY_LOST', 'hot hit '];
      for (const want of wants) {
        expect(d, `${w}×${h}: ${want}`).toContain(want);
      }
      expect(d).not.toMatch(/(epoch|wd|watchdog|lag|hit)[^\n]*…/);
      // the sessions and lost lines stay within the pane's first rows (no scrolling needed)
      const shown = vm.detail.slice(0, vm.layout.paneHeight - 1).map(lineText).join('\n');
      expect(shown).toMatch(/hot hit \d+\.\d%/);
      expect(shown).toContain('data plane lost');
      for (const line of vm.detail) expect(lineText(line).length).toBeLessThanOrEqual(vm.layout.detailWidth - 1);
    }
  });
});

