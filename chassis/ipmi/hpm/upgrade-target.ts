/**
 * The HPM.1 upgrade state of one IPM controller (PICMG HPM.1 r1.0 §3): its upgradable components,
 * the upload in progress, the deferred (uploaded, not yet active) and backup copies, and the
 * long-duration command (activation, manual rollback) the commands report on. Pure: no timers;
 * a component's activation may finish later, through the callback it is handed.
 *
 * Upgrade, as `ipmitool hpm upgrade FILE activate` drives it: Initiate Upgrade Action (upload for
 * upgrade) of one component → Upload Firmware Block × n (block numbers 0, 1, … mod 256) → Finish
 * Firmware Upload (the component image checked: component-image.ts; and the component's own
 * check, e.g. the HA layer refusing an incompatible payload version) → the copy is deferred →
 * Activate Firmware runs every deferred copy (checked first, all or nothing) → the old version
 * becomes the backup. Initiate Manual Rollback runs the backups. Activation and rollback answer
 * 80h (in progress) when a component finishes later; Get Upgrade Status and Query Rollback Status /
 * Query Self-test Results report until it is over.
 *
 * Completion codes (HPM.1, as ipmitool names them): 80h in progress · Initiate Upgrade Action 81h
 * invalid components mask · Finish 81h image length mismatch, 82h internal checksum error or wrong
 * component · Get Component Properties 82h invalid component, 83h invalid selector · Query Rollback
 * Status 81h rollback failed. Generic: D5h for a command the state does not allow (no upload in
 * progress, nothing to activate or roll back, a long-duration command running), CCh for a bad
 * block number or action, C4h for an upload over the size limit; a component's refusal carries
 * its own code (the HA layer's, e.g. an incompatible major version → D5h).
 */
import { CompletionCode, IpmiError } from '../codes.ts';
import { ComponentImageError, parseComponentImage } from './component-image.ts';
import type { FirmwareVersion } from './image.ts';

/** HPM.1 long-duration commands. */
export const HPM_CMD = { activate: 0x35, rollback: 0x38, finish: 0x33, initiate: 0x31 } as const;
/** Command in progress (HPM.1). */
export const CC_IN_PROGRESS = 0x80;
/** Largest component image accepted (bytes). */
export const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;

/** How a component's activation ended. */
export type RunResult = { ok: true } | { ok: false; cc: number; reason: string };

/** One upgradable component of a controller. */
export interface HpmComponent {
  /** Component ID 0..7. */
  readonly id: number;
  /** Description string (≤ 12 characters; Get Component Properties selector 2). */
  readonly description: string;
  /** A backup copy is kept and can be rolled back to. */
  readonly rollback: boolean;
  /** Activating it restarts the payload (general properties bit 5). */
  readonly payloadColdReset: boolean;
  /** The version running now. */
  current(): FirmwareVersion;
  /** Throws IpmiError when `version` cannot be run now; changes nothing. */
  check(version: FirmwareVersion): void;
  /** Runs `version`; calls `done` once, at once or later, when it runs (or failed: the old one still runs). */
  run(version: FirmwareVersion, done: (r: RunResult) => void): void;
}

/** Target upgrade capabilities (Get Target Upgrade Capabilities; timeouts in 5 s units). */
export interface HpmCapabilities {
  /** Global capabilities byte: b0 self-test, b1 automatic rollback, b2 manual rollback, b3 service affected, b4 deferred activation, b5 IPMC degraded, b6 rollback override, b7 upgrade undesirable. */
  global: number;
  upgradeTimeout: number;
  selfTestTimeout: number;
  rollbackTimeout: number;
  inaccessTimeout: number;
}

interface Upload {
  component: number;
  nextBlock: number;
  chunks: Uint8Array[];
  bytes: number;
  lastBlockLength: number;
}

type LongCommand = { cmd: number; cc: number };

function fail(cc: number, why: string): IpmiError {
  return new IpmiError(cc, why);
}

/** See the module header. */
export class HpmUpgradeTarget {
  private readonly components = new Map<number, HpmComponent>();
  private readonly backups = new Map<number, FirmwareVersion>();
  private readonly deferred = new Map<number, FirmwareVersion>();
  private upload: Upload | null = null;
  private long: LongCommand | null = null;
  private busy: 'activate' | 'rollback' | null = null;
  private rolledBack = 0;
  private rollbackFailed = false;

  constructor(
    components: readonly HpmComponent[],
    readonly capabilities: HpmCapabilities,
  ) {
    for (const c of components) {
      if (c.id < 0 || c.id > 7 || this.components.has(c.id)) throw new TypeError(`HPM.1 component ${c.id}: IDs are 0..7, each once`);
      this.components.set(c.id, c);
    }
  }

  /** Bit n set: component n exists. */
  get present(): number {
    let m = 0;
    for (const id of this.components.keys()) m |= 1 << id;
    return m;
  }

  /** True while an activation or rollback runs. */
  get inProgress(): boolean {
    return this.busy !== null;
  }

  /** Component `id`. @throws IpmiError(82h) when absent */
  component(id: number): HpmComponent {
    const c = this.components.get(id);
    if (!c) throw fail(0x82, `no component ${id}`);
    return c;
  }

  /** The backup (rollback) copy of a component, if any. */
  backup(id: number): FirmwareVersion | undefined {
    return this.backups.get(id);
  }

  /** The deferred (uploaded, not active) copy of a component, if any. */
  deferredVersion(id: number): FirmwareVersion | undefined {
    return this.deferred.get(id);
  }

  private idle(what: string): void {
    if (this.busy) throw fail(CompletionCode.NotSupportedInPresentState, `${what}: ${this.busy === 'activate' ? 'an activation' : 'a rollback'} is in progress`);
  }

  private maskComponents(mask: number): HpmComponent[] {
    if (mask === 0 || (mask & ~this.present) !== 0) throw fail(0x81, `components mask ${mask.toString(16)}h is empty or names absent components (present ${this.present.toString(16)}h)`);
    return [...this.components.values()].filter((c) => mask & (1 << c.id));
  }

  /**
   * Initiate Upgrade Action: 0 backup, 1 prepare (both accepted, nothing to do yet), 2 upload for
   * upgrade (one component).
   * @throws IpmiError 81h (mask), CCh (action 3 compare is not supported, or reserved), D5h (busy)
   */
  initiate(mask: number, action: number): void {
    this.idle('initiate upgrade action');
    const comps = this.maskComponents(mask);
    // action 0 (backup) and 1 (prepare) are accepted and change nothing: the running copy becomes
    // the backup when a new one is activated, so a refused or abandoned upgrade keeps the old backup
    if (action === 2) {
      if (comps.length !== 1) throw fail(0x81, 'an upload is for exactly one component');
      const id = comps[0]!.id;
      this.deferred.delete(id);
      this.upload = { component: id, nextBlock: 0, chunks: [], bytes: 0, lastBlockLength: -1 };
    } else if (action !== 0 && action !== 1) {
      throw fail(CompletionCode.InvalidDataField, `upgrade action ${action} is not supported (0 backup, 1 prepare, 2 upload for upgrade)`);
    }
    this.long = { cmd: HPM_CMD.initiate, cc: 0 };
  }

  /**
   * Upload Firmware Block. A repeat of the last block (same number and length) is ignored.
   * @throws IpmiError D5h (no upload), CCh (block out of order), C4h (too large)
   */
  block(number: number, data: Uint8Array): void {
    const u = this.upload;
    if (!u) throw fail(CompletionCode.NotSupportedInPresentState, 'no upload in progress (Initiate Upgrade Action first)');
    if (number === ((u.nextBlock + 255) & 0xff) && data.length === u.lastBlockLength) return;
    if (number !== u.nextBlock) throw fail(CompletionCode.InvalidDataField, `block ${number}, expected ${u.nextBlock}`);
    if (u.bytes + data.length > MAX_UPLOAD_BYTES) throw fail(CompletionCode.OutOfSpace, `upload over ${MAX_UPLOAD_BYTES} bytes`);
    u.chunks.push(data.slice());
    u.bytes += data.length;
    u.lastBlockLength = data.length;
    u.nextBlock = (u.nextBlock + 1) & 0xff;
  }

  /**
   * Finish Firmware Upload: checks the length, the component image and that the component would
   * run that version now (its `check`); the copy becomes deferred. The upload ends either way.
   * @throws IpmiError D5h (no upload), 82h (another component, bad checksum), 81h (length), or the
   *   component's refusal
   */
  finish(component: number, length: number): FirmwareVersion {
    const u = this.upload;
    if (!u) throw fail(CompletionCode.NotSupportedInPresentState, 'no upload in progress');
    if (component !== u.component) throw fail(0x82, `finish for component ${component}, the upload is for ${u.component}`);
    this.upload = null;
    this.long = { cmd: HPM_CMD.finish, cc: 0 };
    const bytes = new Uint8Array(u.bytes);
    let at = 0;
    for (const c of u.chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    try {
      if (length !== u.bytes) throw new ComponentImageError('length', `finish says ${length} bytes, ${u.bytes} were uploaded`);
      const img = parseComponentImage(bytes, component);
      this.checkComponent(component, img.version);
      this.deferred.set(component, img.version);
      return img.version;
    } catch (e) {
      if (!(e instanceof ComponentImageError)) throw e;
      const cc = e.fault === 'length' ? 0x81 : 0x82;
      this.long = { cmd: HPM_CMD.finish, cc };
      throw fail(cc, e.message);
    }
  }

  /** A component's refusal of `version`, noted as the last command's completion code. */
  private checkComponent(id: number, version: FirmwareVersion): void {
    try {
      this.component(id).check(version);
    } catch (e) {
      if (e instanceof IpmiError) this.long = { cmd: HPM_CMD.finish, cc: e.cc };
      throw e;
    }
  }

  /** Abort Firmware Upgrade: drops the upload. @throws IpmiError(81h) while an activation or rollback runs */
  abort(): void {
    if (this.busy) throw fail(0x81, 'cannot abort: an activation or rollback is in progress');
    this.upload = null;
  }

  /** Get Upgrade Status: [command in progress or last long-duration command, its completion code]. */
  status(): [number, number] {
    return this.long ? [this.long.cmd, this.long.cc] : [0, 0];
  }

  /**
   * Activate Firmware: runs every deferred copy (IPMC and boot first, payload last). When one
   * fails (now or later), it and the copies after it stay deferred: Activate may be asked again.
   * @returns 00h when all run now, 80h when one finishes later (Get Upgrade Status reports)
   * @throws IpmiError D5h (busy, nothing deferred) or a component's refusal (nothing changed)
   */
  activate(): number {
    this.idle('activate firmware');
    if (this.deferred.size === 0) throw fail(CompletionCode.NotSupportedInPresentState, 'nothing to activate (upload a component first)');
    const jobs = [...this.deferred.entries()].sort((a, b) => this.order(a[0]) - this.order(b[0]));
    for (const [id, v] of jobs) this.component(id).check(v);
    this.deferred.clear();
    const onFail = (left: Array<[number, FirmwareVersion]>) => {
      for (const [id, v] of left) if (!this.deferred.has(id)) this.deferred.set(id, v);
    };
    return this.runAll('activate', jobs, (id, old) => {
      if (this.component(id).rollback) this.backups.set(id, old);
    }, onFail);
  }

  /**
   * Initiate Manual Rollback: runs every backup copy.
   * @returns 00h or 80h as activate
   * @throws IpmiError D5h (busy, no backup) or a component's refusal
   */
  rollback(): number {
    this.idle('manual rollback');
    const jobs = [...this.backups.entries()].sort((a, b) => this.order(a[0]) - this.order(b[0]));
    if (jobs.length === 0) throw fail(CompletionCode.NotSupportedInPresentState, 'no backup copy to roll back to');
    for (const [id, v] of jobs) this.component(id).check(v);
    this.rolledBack = 0;
    this.rollbackFailed = false;
    return this.runAll('rollback', jobs, (id) => {
      this.backups.delete(id);
      this.rolledBack |= 1 << id;
    });
  }

  /** Query Rollback Status: components rolled back by the last rollback. @throws IpmiError 80h (running), 81h (failed) */
  rollbackStatus(): number {
    if (this.busy === 'rollback') throw fail(CC_IN_PROGRESS, 'rollback in progress');
    if (this.rollbackFailed) throw fail(0x81, 'the last rollback failed');
    return this.rolledBack;
  }

  /** Query Self-test Results: 55h 00h (passed). @throws IpmiError 80h while an activation runs */
  selfTest(): [number, number] {
    if (this.busy === 'activate') throw fail(CC_IN_PROGRESS, 'activation in progress');
    return [0x55, 0x00];
  }

  private order(id: number): number {
    return this.component(id).payloadColdReset ? 10 + id : id;
  }

  /** Runs jobs one after the other; `onOk(id, oldVersion)` for each that runs, `onFail(jobs not run)` when one fails. */
  private runAll(
    kind: 'activate' | 'rollback',
    jobs: Array<[number, FirmwareVersion]>,
    onOk: (id: number, old: FirmwareVersion) => void,
    onFail: (left: Array<[number, FirmwareVersion]>) => void = () => {},
  ): number {
    const cmd = kind === 'activate' ? HPM_CMD.activate : HPM_CMD.rollback;
    this.busy = kind;
    this.long = { cmd, cc: CC_IN_PROGRESS };
    let i = 0;
    const finish = (cc: number) => {
      this.busy = null;
      this.long = { cmd, cc };
      if (kind === 'rollback' && cc !== 0) this.rollbackFailed = true;
    };
    const next = (): void => {
      if (i >= jobs.length) return finish(0);
      const [id, v] = jobs[i++]!;
      const c = this.component(id);
      const old = c.current();
      let called = false;
      c.run(v, (r) => {
        if (called) return;
        called = true;
        if (!r.ok) {
          onFail(jobs.slice(i - 1));
          return finish(r.cc);
        }
        onOk(id, old);
        next();
      });
    };
    next();
    if (!this.busy) {
      const cc = this.long.cc;
      if (cc !== 0 && cc !== CC_IN_PROGRESS) throw fail(cc, `${kind} failed`);
      return 0;
    }
    return CC_IN_PROGRESS;
  }
}
