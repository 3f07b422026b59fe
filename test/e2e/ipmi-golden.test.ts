/**
 * The whole reference battery (../shared/ipmi/golden, INDEX.txt) with real ipmitool 1.8.19
 * (`-I lanplus -C 3`, `-C 17`, `-I lan`, and the non-ATCA set) and real FreeIPMI 1.6.10 against the
 * default shelf's IPMI face, compared by shape (test/support/ipmi-golden.ts) under the outcome rules
 * of ../shared/ipmi/README.md:
 *
 * - where ipmi_sim answers correctly: the same exit code, the same shape of stdout (same labels,
 *   sections, table columns; values are the shelf's own) and the same stderr;
 * - where ipmi_sim fails for lack of a feature (self test, restart cause, POH, in-session auth caps,
 *   activation policy, port state, AMC port state, power levels, clocks, bused resources, suite 17,
 *   FreeIPMI without -W opensesspriv / at USER privilege, chassis capabilities): atcasim succeeds,
 *   and the output is compared with what ipmitool / FreeIPMI print for a successful answer
 *   (EXPECTED_* below), plus value checks against the shelf;
 * - where failing is the correct answer (unknown command, bad NetFn, no FRU 1, no LED 5, quiesce not
 *   offered, auth type NONE): the same failure and message;
 * - ipmitool's own broken subcommands (listed in IPMITOOL_BUGS) still run and must give what the
 *   transcript shows (nothing reaches the BMC, so nothing of atcasim is compared).
 *
 * The emulator under test is `atcasim start --headless --ipmi-port 0 --db TMP` (a separate process,
 * test/support/headless.ts): each folder runs against a freshly started one, in the battery's order,
 * with the state-changing steps of the transcripts: chassis power off/on/cycle/reset, LED set, FRU 0
 * of the shelf manager cold-reset (75) and deactivated (81) — both switch the shelf manager over to
 * the peer, and the battery goes on against the same address —, the forced M2 before 85 (the
 * operator closes the deactivated ShMC's handle: atcasim's OEM Hot-Swap Handle command, what
 * `clia handle close` sends), the bridged deactivation of slot3 (91: its traffic moves to the other
 * boards) and SEL clear (95). Before the battery the ShMC temperature is driven to 82 °C and back
 * with the OEM sensor injection (ipmi_sim's seeded SEL holds an "Upper Critical going high"
 * record), so `sel elist` has the reference's mix of record kinds. The hot-swap step is 250 ms
 * (`--hot-swap-step`). State checks between the runs go through atcasim's own IPMI client
 * (chassis/clia), never into the process.
 *
 * Values deliberately different from ipmi_sim, by design of the shelf: LED 1 is under local control
 * (ipmi_sim: "[NO LOCAL CONTROL]"), so 53/55 print the local-control lines (and 55 the override).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShelfApi } from '../../chassis/clia/shelf-api.ts';
import type { HeadlessEmulator } from '../support/headless.ts';
import {
  firstTwoChannels,
  listGolden,
  loadGolden,
  runAgainstGolden,
  type GoldenComparison,
  type GoldenExpectations,
} from '../support/ipmi-golden.ts';
import { connectClia, startReferenceEmulator } from '../support/ipmi-shelf.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A running emulator and an IPMI client to it. */
interface Rig {
  emu: HeadlessEmulator;
  api: ShelfApi & { close(): Promise<void> };
  port: number;
}

async function startRig(): Promise<Rig> {
  const emu = await startReferenceEmulator();
  try {
    const api = await connectClia(emu.ipmi.port);
    return { emu, api, port: emu.ipmi.port };
  } catch (e) {
    await emu.kill();
    emu.cleanup();
    throw e;
  }
}

async function stopRig(r: Rig | undefined): Promise<void> {
  if (!r) return;
  await r.api.close().catch(() => {});
  expect(await r.emu.stop()).toBe(0);
  r.emu.cleanup();
}

const state = async (r: Rig, fru: string) => (await r.api.frus()).find((f) => f.name === fru)!.state;
const active = async (r: Rig) => (await r.api.shmStatus()).self;
const powerOn = async (r: Rig) => ((await r.api.client.request(0x00, 0x01)).data[0]! & 1) === 1;
/** Raw PICMG request at the shelf manager (identifier 00h prepended); the response data after it. */
async function picmgRaw(r: Rig, cmd: number, data: number[]): Promise<Uint8Array> {
  const x = await r.api.client.request(0x2c, cmd, [0x00, ...data]);
  expect(x.cc).toBe(0);
  return x.data.subarray(1);
}

/** What ipmitool prints for a successful `channel authcap 1 4` (ipmi_sim answered D5h). */
const EXPECTED_AUTHCAP = `Channel number             : 1
IPMI v1.5  auth types      : MD5 
KG status                  : default (all zeroes)
Per message authentication : enabled
User level authentication  : enabled
Non-null user names exist  : yes
Null user names exist      : no
Anonymous login enabled    : no
Channel supports IPMI v1.5 : yes
Channel supports IPMI v2.0 : yes
`;
const EXPECTED_LED_LOCAL = `LED states:\t\t\t\t\t\t  1\t[LOCAL CONTROL]
  Local Control function:     0  [OFF]
  Local Control On-Duration:  0
  Local Control Color:        2  [RED]
`;
const EXPECTED_LED_OVERRIDE = `${EXPECTED_LED_LOCAL.replace('1\t[LOCAL CONTROL]', '3\t[LOCAL CONTROL|OVERRIDE]')}  Override function:     ff  [OFF]
  Override On-Duration:  0
  Override Color:        2  [RED]
`;
const EXPECTED_PORTSTATE = `      Link Grouping ID:     0x00
      Link Type Extension:  0x00
      Link Type:            0x01  PICMG 3.0 Base Interface 10/100/1000
      Link Designator: 
        Port Flag:          0x01
        Interface:          0x00 - Base Interface
        Channel Number:     0x01
      STATE:                enabled

`;
const EXPECTED_AMC_PORTSTATE = `   Link device :         AMC
   Link Grouping ID:     0x00
   Link Type Extension:  1000BASE-BX (SerDES Gigabit)
   Link Type:            ETHERNET
   Link Designator: 
      Channel Number:    0x00
      Port Flag:         0x01
   STATE:                enabled

`;
const EXPECTED_POWER = `Dynamic Power Configuration: disabled
Actual Power Level:          1
Delay to stable Power:       0
Power Multiplier:            1
   Power Draw 1:            20
`;
const EXPECTED_CLK = `CLK resource id   :  -1 [ Unknown (0x0F) ]
CLK id            :   0 [ Unknown (0x00) ]
CLK setting       : 0x00
 - state:     disabled
 - direction: Receiver
 - PLL ctrl:  0x0
`;
const EXPECTED_BUSRES = `Resource 0x00 'Metallic Test Bus pair #1 ' : 0x01 [No control] 
Resource 0x01 'Metallic Test Bus pair #2 ' : 0x01 [No control] 
Resource 0x02 'Synch clock group 1 (CLK1)' : 0x01 [No control] 
Resource 0x03 'Synch clock group 2 (CLK2)' : 0x01 [No control] 
Resource 0x04 'Synch clock group 3 (CLK3)' : 0x01 [No control] 
`;
/** FreeIPMI `ipmi-chassis --get-chassis-capabilities` for a 6-byte answer (ipmi_sim's 35 garbage bytes timed it out). */
const EXPECTED_CHASSIS_CAPS = `Intrusion sensor        : not provided
Front Panel Lockout     : not provided
Diagnostic Interrupt    : not provided
Power interlock         : not provided
FRU Info Device Address : 20h 
SDR Device Address      : 20h
SEL Device Address      : 20h
Sys Mgmt Device Address : 20h
Bridge Device Address   : 20h
`;

/**
 * FreeIPMI 1.6.10 `ipmi-sensors -v --bridge-sensors` bridges Get Sensor Reading but asks the BMC
 * itself (20h) for the thresholds of a remote sensor; 20h has no sensor with that number for the
 * boards' 3rd/4th sensors, so FreeIPMI omits their threshold lines (the reference shelf had only
 * sensors 1–2 everywhere). The lines are removed from both outputs before the comparison; the
 * check below verifies the ShMC's own record still has them.
 */
const dropThresholdLines = (text: string) => text.replace(/^(Lower|Upper) (Non-Critical|Critical|Non-Recoverable) Threshold: .*\n/gm, '');

/** ipmitool's own no-op or broken subcommands: run, compared with the transcript, but nothing reaches atcasim. */
const IPMITOOL_BUGS: Record<string, string> = {
  '60': 'ipmitool 1.8.19 `picmg portstate getall` sends no Get Port State (prints nothing, exit 0)',
  '61': 'ipmitool 1.8.19 `picmg portstate getgranted` sends no Get Port State (prints nothing, exit 0)',
  '62': 'ipmitool 1.8.19 `picmg portstate getdenied` sends no Get Port State (prints nothing, exit 0)',
  '72': 'ipmitool 1.8.19 `picmg clk getall` prints its usage (exit 1) whatever the BMC answers',
};

/** A step of the battery: expectations plus what happens around the run. */
interface Step extends GoldenExpectations {
  before?: (h: Rig, s: RunState) => Promise<void> | void;
  check?: (r: GoldenComparison, h: Rig, s: RunState) => Promise<void> | void;
}

/** State carried through one folder's battery. */
interface RunState {
  activeBefore?: string;
  deactivatedShmc?: string;
}

const ok = (stdout: string): Step => ({ exitCode: 0, stdout, stderr: '' });

/** The ipmitool battery's steps (same for every ipmitool folder). */
const IPMITOOL_STEPS: Record<string, Step> = {
  '02': { check: (r) => expect(r.result.stdout).toMatch(/^GUID Encoding\s+: IPMI$/m) },
  '03': { ...ok('Selftest: passed\n'), check: (r) => expect(r.result.stdout).toBe('Selftest: passed\n') },
  '07': { check: (r) => expect(r.result.stdout).toBe('Chassis Power is on\n') },
  '09': { check: async (r, h) => (expect(r.result.stdout).toBe('Chassis Power is off\n'), expect(await powerOn(h)).toBe(false)) },
  '10': { check: async (_r, h) => expect(await powerOn(h)).toBe(true) },
  '11': { check: (_r, h) => until('power back on after the cycle', () => powerOn(h)) },
  '13': { check: (r) => expect(r.result.stdout).toBe('Chassis Power is on\n') },
  '16': { ...ok('System restart cause: chassis power control command\n'), check: (r) => expect(r.result.stdout).toMatch(/^System restart cause: chassis power control command$/m) },
  '17': { ...ok('POH Counter  : 0 days, 0 hours, 0 minutes\n'), check: (r) => expect(r.result.stdout).toMatch(/^POH Counter\s+: \d+ days, \d+ hours, \d+ minutes$/m) },
  '19': { check: (r) => expect(r.result.stdout).toMatch(/^Node6 CPU Temp\s+\| 53 degrees C\s+\| ok$/m) },
  '23': { check: (r) => expect(r.result.stdout).toMatch(/^PEM1 Feed\s+\| 48\.000\s+\| Volts/m) },
  '26': { check: (r) => expect(r.result.stdout).toMatch(/Sensor Reading\s+: 48 \(\+\/- 0\) degrees C/) },
  '30': { check: (r) => expect(r.result.stdout).toMatch(/^FRU Device Description : Node3/m) },
  '35': ok(EXPECTED_AUTHCAP),
  '36': { check: (r) => expect(r.result.stdout).toMatch(/^RMCP\+ Cipher Suites\s+: 3,17$/m) },
  '38': { ignoreLabels: ['console ip', 'console mac', 'console port'] },
  '45': { check: (r) => expect(r.result.stdout).toMatch(/^Max FRU Device ID\t: 0x46$/m) },
  '46': { check: (r) => (expect(r.result.stdout).toMatch(/^IPMB-0 Address   : 0x20$/m), expect(r.result.stdout).toMatch(/^Site Type        : Dedicated Shelf Manager$/m)) },
  '50': { check: (r) => expect(r.result.stdout).toMatch(/^LED Color Capabilities: RED, AMBER, $/m) },
  '53': ok(EXPECTED_LED_LOCAL),
  // Get FRU LED State of LED 1: override on (b1), function FFh, red
  '54': { check: async (_r, h) => expect([...(await picmgRaw(h, 0x08, [0, 1]))]).toEqual([0x03, 0x00, 0x00, 0x02, 0xff, 0x00, 0x02]) },
  '55': ok(EXPECTED_LED_OVERRIDE),
  '56': { check: async (_r, h) => expect((await picmgRaw(h, 0x08, [0, 0]))[0]).toBe(0x01) },
  '58': { ...ok(''), check: async (_r, h) => expect([...(await picmgRaw(h, 0x0b, [0]))]).toEqual([0x00]) },
  '59': ok(EXPECTED_PORTSTATE),
  '63': ok(''),
  '64': ok(EXPECTED_AMC_PORTSTATE),
  '65': ok(''),
  '67': ok(EXPECTED_POWER),
  '68': ok(EXPECTED_POWER),
  '69': ok(EXPECTED_POWER),
  '70': ok(''),
  '71': ok(EXPECTED_CLK),
  // clock 0 now enabled (08h), 100 MHz
  '73': { ...ok(''), check: async (_r, h) => expect([...(await picmgRaw(h, 0x2d, [0]))]).toEqual([0x08, 0x00, 0x00, 0x00, 0x00, 0xe1, 0xf5, 0x05]) },
  '74': ok(EXPECTED_BUSRES),
  '75': {
    before: async (h, s) => void (s.activeBefore = await active(h)),
    // cold reset of FRU 0 at 20h = the active ShMC: a switchover; the address keeps answering
    check: async (_r, h, s) => {
      expect(await active(h)).not.toBe(s.activeBefore);
      expect(await state(h, s.activeBefore!)).toBe(4);
    },
  },
  '81': {
    // the ShMC cold-reset at 75 re-arbitrates (booting → standby.ready → standby.hot); a planned
    // deactivation of the active one is refused until its peer is hot (ha.md S02), so wait for it
    before: async (h, s) => {
      await until('the peer ShMC standby.hot', async () => (await h.api.shmStatus()).peerRole === 'standby.hot', 20_000);
      // the active ShMC learns the peer's new role from the peer's next heartbeat (100 ms interval)
      await sleep(500);
      s.deactivatedShmc = await active(h);
    },
    check: async (_r, h, s) => {
      expect(await active(h)).not.toBe(s.deactivatedShmc);
      expect([6, 1]).toContain(await state(h, s.deactivatedShmc!));
    },
  },
  '82': { check: (r) => expect(r.result.stdout).toMatch(/\[Transition to M4\]/) },
  '85': {
    // ipmi_sim's console forced the ShMC's FRU 0 into M2; here the operator closes the handle of the
    // ShMC that 81 deactivated, once it has reached M1
    before: async (h, s) => {
      await until('the deactivated ShMC in M1', async () => (await state(h, s.deactivatedShmc!)) === 1);
      expect(await h.api.handle(s.deactivatedShmc!, 'close')).toBe(2);
    },
  },
  '87': { check: (_r, h, s) => until('the handle-closed ShMC back in M4', async () => (await state(h, s.deactivatedShmc!)) === 4) },
  '89': { check: (r) => (expect(r.result.stdout).toMatch(/^IPMB-0 Address   : 0x86$/m), expect(r.result.stdout).toMatch(/^Site Type        : ATCA board$/m)) },
  '90': { check: (r) => expect(r.result.stdout).toMatch(/^Product ID\s+: 3 \(0x0003\)$/m) },
  '91': {
    check: async (_r, h) => {
      await until('slot3 in M1', async () => (await state(h, 'slot3')) === 1);
      // M6 commanded by the shelf manager (cause 1), then M1 (normal, cause 0), from slot3's IPMC
      const hs = (await h.api.sel()).filter((x) => x.sensorType === 0xf0 && (x.generatorId! & 0xff) === 0x86);
      expect(hs.slice(-2).map((x) => [x.eventData![0] & 0x0f, x.eventData![1] >> 4])).toEqual([
        [6, 1],
        [1, 0],
      ]);
      // its traffic moves on: slot3 leaves service holding no sessions, the shelf keeps forwarding
      // (its packet count grows between two stats lines) and the other processor boards hold the flows
      await h.emu.waitFor((l) => l.event === 'service' && l.fru === 'slot3' && l.in_service === false, 5000, 'slot3 out of service');
      type Board = { slot: number; in_service: boolean; sessions: number };
      const n = h.emu.lines.length;
      const moved = (l: Record<string, unknown>) => {
        const b = l.boards as Board[] | undefined;
        return !!b && b.some((x) => x.slot === 3 && !x.in_service && x.sessions === 0) && b.filter((x) => x.slot !== 3 && x.in_service).reduce((a, x) => a + x.sessions, 0) > 0;
      };
      const first = await h.emu.waitFor((l) => h.emu.lines.indexOf(l) >= n && l.event === 'stats' && moved(l), 20_000, 'a stats line with slot3 out of service');
      await h.emu.waitFor((l) => h.emu.lines.indexOf(l) > h.emu.lines.indexOf(first) && l.event === 'stats' && moved(l) && (l.packets as number) > (first.packets as number), 20_000, 'traffic still flowing');
    },
  },
  '92': { check: (r) => expect(r.result.stdout).toMatch(/\[Transition to M1\]/) },
  '94': { check: (r) => expect(r.result.stdout).toMatch(/Node3 HotSwap \| Transition to M6 \| Asserted/) },
  '96': { check: (r) => expect(r.result.stdout).toMatch(/^Entries\s+: 0$/m) },
};

/** Seeds the SEL like ipmi_sim's atca.emu: an upper-critical temperature event (and its recovery). */
async function seedThresholdEvents(h: Rig): Promise<void> {
  const shmc = await active(h);
  expect((await h.api.sensorValue(shmc, 'ShMC Temp', 82)).status).toBe('cr');
  expect((await h.api.sensorValue(shmc, 'ShMC Temp', 42)).status).toBe('ok');
}

async function runFolder(folder: string, steps: Record<string, Step>, base: (name: string) => GoldenExpectations, h: Rig, state: RunState, name: string) {
  const nn = name.slice(0, 2);
  const step = steps[nn] ?? {};
  await step.before?.(h, state);
  const { before: _b, check, ...exp } = step;
  const r = await runAgainstGolden(`${folder}/${name}`, h.port, { ...base(name), ...exp });
  expect(r.problems).toEqual([]);
  await check?.(r, h, state);
}

const C3 = 'ipmitool-lanplus-C3';

describe.each([C3, 'ipmitool-lanplus-C17', 'ipmitool-lan'])('%s battery (fresh emulator)', (folder) => {
  let h: Rig;
  const state: RunState = {};
  beforeAll(async () => {
    h = await startRig();
    await seedThresholdEvents(h);
  });
  afterAll(() => stopRig(h));
  // -C 17: every transcript failed against ipmi_sim (no SHA-256); atcasim must print what -C 3 shows
  const base = (name: string): GoldenExpectations => {
    if (folder !== 'ipmitool-lanplus-C17') return {};
    const g = loadGolden(`${C3}/${name}`);
    return { exitCode: g.exitCode, stdout: g.stdout, stderr: g.stderr };
  };
  it.each(listGolden(folder).map((f) => f.split('/')[1]!))('%s', async (name) => {
    await runFolder(folder, IPMITOOL_STEPS, base, h, state, name);
  });
});

describe('ipmitool-lanplus-C3-nonatca (atcasim is always an ATCA shelf)', () => {
  let h: Rig;
  beforeAll(async () => {
    h = await startRig();
  });
  afterAll(() => stopRig(h));
  // ipmi_sim without atca_enable made every picmg command fail ("Error getting address
  // information."); atcasim's shelf always answers PICMG, so these print what the ATCA set shows.
  const asAtca: Record<string, string> = { '02': '45_picmg_properties.txt', '03': '46_picmg_addrinfo.txt', '04': '83_picmg_activate_from_m1.txt' };
  it.each(listGolden('ipmitool-lanplus-C3-nonatca').map((f) => f.split('/')[1]!))('%s', async (name) => {
    const atca = asAtca[name.slice(0, 2)];
    const g = atca ? loadGolden(`${C3}/${atca}`) : undefined;
    const r = await runAgainstGolden(`ipmitool-lanplus-C3-nonatca/${name}`, h.port, g ? { exitCode: g.exitCode, stdout: g.stdout, stderr: g.stderr } : {});
    expect(r.problems).toEqual([]);
  });
});

describe('freeipmi battery (fresh emulator)', () => {
  let h: Rig;
  beforeAll(async () => {
    h = await startRig();
    await seedThresholdEvents(h);
  });
  afterAll(() => stopRig(h));
  const bmcInfo04 = () => loadGolden('freeipmi/04_bmc-info_lan20_C3_admin.txt').stdout;
  const bmcInfo05 = () => loadGolden('freeipmi/05_bmc-info_lan15.txt').stdout;
  const cut = { transform: firstTwoChannels };
  const steps: Record<string, Step> = {
    // ipmi_sim echoed privilege 0 in Open Session (FreeIPMI needed -W opensesspriv); atcasim returns the granted one
    '01': { ...cut, exitCode: 0, stdout: bmcInfo04(), stderr: '' },
    // USER privilege: Get System Info Parameters answers C1h (ipmi_sim: D4h, fatal for bmc-info)
    '02': { ...cut, exitCode: 0, stdout: bmcInfo04(), stderr: '' },
    '03': { ...cut, exitCode: 0, stdout: bmcInfo04(), stderr: '' },
    '04': cut,
    '05': cut,
    '06': { ...cut, exitCode: 0, stdout: bmcInfo05(), stderr: '' },
    '07': { ...cut, exitCode: 0, stdout: bmcInfo05(), stderr: '' },
    '10': { check: (r) => expect(r.result.stdout).toMatch(/\| Node6 CPU Temp\s+\| Temperature\s+\| 53\.00\s+\| C\s+\| 'OK'/) },
    '11': {
      blockSet: true,
      transform: dropThresholdLines,
      check: (r) => (expect(r.result.stdout).toMatch(/^Sensor Owner ID: 8Ch$/m), expect(r.result.stdout).toMatch(/ID String: ShMC Temp\n(.*\n){10}Lower Critical Threshold: N\/A\nUpper Critical Threshold: 80\.000000 C/)),
    },
    '17': {
      blockSet: true, check: (r) => expect(r.result.stdout).toMatch(/^FRU Inventory Device: PEM2 \(ID 00h\)$/m) },
    '19': { exitCode: 0, stdout: '127.0.0.1: on\n', stderr: '' },
    '23': { check: async (_r, hh) => expect(await powerOn(hh)).toBe(false) },
    '24': { check: async (_r, hh) => expect(await powerOn(hh)).toBe(true) },
    '27': { ...ok(EXPECTED_CHASSIS_CAPS), check: (r) => expect(r.result.stdout).toMatch(/^Bridge Device Address\s+: 20h$/m) },
    '29': { check: (r) => expect(r.result.stdout.trim()).toBe('rcvd: 01 00 00 01 02 10 02 BF 5A 31 00 01 00 00 00 00 00') },
    '31': { check: (r) => expect(r.result.stdout.trim()).toBe('rcvd: 01 00 00 10 20 FF 00 01 03') },
  };
  const names = listGolden('freeipmi').map((f) => f.split('/')[1]!);
  it.each(names.filter((n) => !/^3[23]_/.test(n)))('%s', async (name) => {
    const nn = name.slice(0, 2);
    const step = steps[nn] ?? {};
    const { before: _b, check, ...exp } = step;
    const r = await runAgainstGolden(`freeipmi/${name}`, h.port, exp);
    expect(r.problems).toEqual([]);
    await check?.(r, h, {});
  });

  // ipmiping / rmcpping only use UDP 623: relay 127.0.0.1:623 → the shelf's port (needs root, as in CI)
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  it.skipIf(!root).each(names.filter((n) => /^3[23]_/.test(n)))('%s (through a socat relay on UDP 623)', async (name) => {
    let relay: ChildProcess | undefined;
    try {
      relay = spawn('socat', ['-T2', 'UDP4-LISTEN:623,bind=127.0.0.1,reuseaddr,fork', `UDP4:127.0.0.1:${h.port}`], { stdio: 'ignore' });
      await sleep(300);
      const r = await runAgainstGolden(`freeipmi/${name}`, h.port);
      expect(r.problems).toEqual([]);
      expect(r.result.stdout).toMatch(/3 (responses|pongs) received in time, 0\.0% packet loss/);
    } finally {
      relay?.kill('SIGTERM');
      await sleep(100);
    }
  });
});

describe('exempt ipmitool subcommands (listed with the reason)', () => {
  it('every exempt entry names a transcript of the battery', () => {
    const all = new Set(listGolden(C3).map((f) => f.split('/')[1]!.slice(0, 2)));
    for (const nn of Object.keys(IPMITOOL_BUGS)) expect(all.has(nn)).toBe(true);
  });
});
