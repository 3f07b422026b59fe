/**
 * `atcasim hpm`: HPM.1 upgrade image files for the emulated controllers (docs/hpm.md).
 *
 *   atcasim hpm pack VERSION --out FILE [--component payload|ipmc|boot] [--fru NAME] [--config FILE]
 *                    [--earliest MAJOR.MINOR] [--size BYTES] [--description TEXT]
 *   atcasim hpm inspect FILE
 *
 * `pack` writes an image `ipmitool hpm upgrade FILE` accepts for the controller of `--fru` (its
 * device ID, manufacturer and product ID from the shelf YAML, the built-in shelf by default): a
 * backup action (payload and IPMC) and one upload action holding an atcasim component image
 * (chassis/ipmi/hpm/component-image.ts) of VERSION. `inspect` validates a file (MD5, signature,
 * header and action checksums) and prints its header and actions; it reads at most
 * `HPM_MAX_IMAGE_BYTES` of a regular file (a device, FIFO or larger file is not an image). Exit 0;
 * 1 when `inspect` finds the file invalid; 2 for bad input or an unwritable/unreadable file.
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync, type Stats } from 'node:fs';
import type { Command } from 'commander';
import { CommandError, ConfigError } from '../../board/common/errors.ts';
import type { ShelfConfig } from '../config/types.ts';
import { encodeComponentImage, fillerBody, parseComponentImage } from '../ipmi/hpm/component-image.ts';
import { encodeHpmImage, formatVersion, HpmImageError, parseHpmImage, type HpmAction, type HpmImage } from '../ipmi/hpm/image.ts';
import { loadDefaultShelf } from '../io/data-dir.ts';
import type { CliContext } from './context.ts';
import { fileErrorText, loadShelfConfigFile } from './read-file.ts';

/** Component names of `--component` and their HPM.1 IDs (chassis/ipmi/hpm/shelf-hpm.ts). */
export const HPM_COMPONENTS: Readonly<Record<string, number>> = { ipmc: 0, payload: 1, boot: 2 };

/** Largest file `hpm inspect` reads as an HPM.1 image, bytes (64 MiB, far above any controller's flash). */
export const HPM_MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/** Options of `hpm pack`. */
export interface PackOptions {
  out: string;
  component?: string;
  fru?: string;
  config?: string;
  earliest?: string;
  size?: string;
  description?: string;
}

/** Parses MAJOR.MINOR (minor 0..99, major 0..127). @throws CommandError('bad_version') */
export function parseHpmVersion(text: string, what = 'VERSION'): { major: number; minor: number } {
  const m = /^(\d{1,3})\.(\d{1,2})$/.exec(text.trim());
  if (!m || Number(m[1]) > 127) throw new CommandError('bad_version', `${what} "${text}": expected MAJOR.MINOR (major 0..127, minor 0..99), e.g. 1.1`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/**
 * Builds the image of `hpm pack`.
 * @param config the shelf whose FRU `o.fru` the image is for
 * @param timeS the header's creation time, seconds since 1970
 * @throws CommandError for a bad version, component, FRU, size or description
 */
export function buildPackImage(version: string, o: Omit<PackOptions, 'out' | 'config'>, config: ShelfConfig, timeS: number): Uint8Array {
  const v = parseHpmVersion(version);
  const compName = o.component ?? 'payload';
  const component = HPM_COMPONENTS[compName];
  if (component === undefined) throw new CommandError('bad_component', `--component "${compName}": expected ${Object.keys(HPM_COMPONENTS).join(', ')}`);
  const fruName = o.fru ?? 'slot3';
  const fru = config.frus.find((f) => f.name === fruName);
  if (!fru) throw new CommandError('unknown_fru', `--fru "${fruName}": no such FRU in shelf ${config.name}`);
  const size = o.size === undefined ? 4096 : Number(o.size);
  if (!Number.isInteger(size) || size < 0 || size > 8 * 1024 * 1024) throw new CommandError('bad_size', `--size "${o.size}": expected 0..8388608 bytes`);
  const earliest = o.earliest === undefined ? { major: 0, minor: 0 } : parseHpmVersion(o.earliest, '--earliest');
  const description = o.description ?? `${compName} ${formatVersion(v)}`;
  if (Buffer.byteLength(description, 'latin1') > 20) throw new CommandError('bad_description', `--description "${description}": at most 20 characters`);
  const aux = [0, 0, 0, 0];
  const data = encodeComponentImage({ component, version: { ...v, aux }, body: fillerBody(compName, formatVersion(v), size) });
  const actions: HpmAction[] = [];
  if (component !== HPM_COMPONENTS.boot) actions.push({ type: 'backup', components: 1 << component });
  actions.push({ type: 'upload', components: 1 << component, version: { ...v, aux }, description, data });
  const image: HpmImage = {
    header: {
      formatVersion: 0, deviceId: fru.device.deviceId, manufacturerId: fru.device.manufacturerId, productId: fru.device.productId, timeS,
      capabilities: 0x0c, components: 1 << component, selfTestTimeout: 2, rollbackTimeout: 24, inaccessTimeout: 4,
      earliestCompatible: earliest, firmware: { ...v, aux }, oemData: new Uint8Array(0),
    },
    actions,
  };
  return encodeHpmImage(image);
}

/** The lines `hpm inspect` prints for a valid image. */
export function describeImage(img: HpmImage): string[] {
  const h = img.header;
  const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
  const out = [
    `device ID ${hex(h.deviceId, 2)}h  manufacturer ${hex(h.manufacturerId, 6)}h  product ${hex(h.productId, 4)}h`,
    `firmware ${formatVersion(h.firmware)}  earliest compatible ${formatVersion(h.earliestCompatible)}  components ${hex(h.components, 2)}h`,
  ];
  for (const a of img.actions) {
    if (a.type !== 'upload') {
      out.push(`action ${a.type} components ${hex(a.components, 2)}h`);
      continue;
    }
    let inner = 'not an atcasim component image';
    try {
      const c = parseComponentImage(a.data, Math.log2(a.components));
      inner = `atcasim component ${c.component} firmware ${formatVersion(c.version)}`;
    } catch (e) {
      inner = `component image refused: ${(e as Error).message}`;
    }
    out.push(`action upload components ${hex(a.components, 2)}h version ${formatVersion(a.version)} "${a.description}" ${a.data.length} bytes (${inner})`);
  }
  return out;
}

/** A file `hpm inspect` cannot take: `unreadable` (exit 2) or `not_image` (exit 1); the message is the whole line after the verb. */
export class ImageFileError extends Error {
  constructor(
    readonly kind: 'unreadable' | 'not_image',
    message: string,
  ) {
    super(message);
    this.name = 'ImageFileError';
  }
}

function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

/**
 * Reads an image file with a bound: a regular file of at most `max` bytes, read up to the size it
 * had when opened (one byte more tells a growing file, which is refused).
 * @param max largest size accepted, bytes [HPM_MAX_IMAGE_BYTES]
 * @throws ImageFileError `FILE: no such file`, `FILE: is a directory, not an HPM.1 image file`,
 *   `FILE: not an HPM.1 image: a character device, not a regular file`, `FILE: not an HPM.1 image: N bytes, more than …`
 */
export function readImageFile(file: string, max = HPM_MAX_IMAGE_BYTES): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new ImageFileError('unreadable', `${file}: ${fileErrorText(e, 'HPM.1 image file')}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new ImageFileError('unreadable', `${file}: is a directory, not an HPM.1 image file`);
    if (!st.isFile()) throw new ImageFileError('not_image', `${file}: not an HPM.1 image: ${fileKind(st)}, not a regular file`);
    const tooBig = (n: number | string) => new ImageFileError('not_image', `${file}: not an HPM.1 image: ${n} bytes, more than the ${max} an image may have`);
    if (st.size > max) throw tooBig(st.size);
    // One byte more than the size fstat gave: a file that grows meanwhile is seen, never read without end.
    const buf = Buffer.allocUnsafe(st.size + 1);
    let got = 0;
    for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, null);
    if (got > st.size) throw new ImageFileError('not_image', `${file}: not an HPM.1 image: it grew beyond ${st.size} bytes while being read`);
    return new Uint8Array(buf.buffer, buf.byteOffset, got);
  } catch (e) {
    if (e instanceof ImageFileError) throw e;
    throw new ImageFileError('unreadable', `${file}: ${fileErrorText(e, 'HPM.1 image file')}`);
  } finally {
    closeSync(fd);
  }
}

/** The line `hpm inspect` prints for an invalid image (the signature checked first: not an image at all). */
export function imageErrorText(file: string, e: HpmImageError): string {
  return e.fault === 'signature' ? `${file}: not an HPM.1 image (no PICMGFWU signature)` : `${file}: ${e.message}`;
}

function configFor(file: string | undefined): ShelfConfig {
  return file === undefined ? loadDefaultShelf() : loadShelfConfigFile(file).config;
}

/** Registers `hpm` on the root command. */
export function register(program: Command, ctx: CliContext): void {
  const hpm = program.command('hpm').description('HPM.1 firmware upgrade images for the emulated controllers (ipmitool hpm)');
  hpm
    .command('pack')
    .description('write an HPM.1 image of VERSION that ipmitool hpm upgrade accepts')
    .argument('<version>', 'firmware version MAJOR.MINOR, e.g. 1.1 (payload: the HA software version)')
    .requiredOption('--out <file>', 'image file to write')
    .option('--component <name>', `component: ${Object.keys(HPM_COMPONENTS).join(', ')} (default payload)`)
    .option('--fru <name>', 'FRU whose controller identity the image carries (default slot3)')
    .option('--config <file>', 'shelf YAML (default the built-in shelf)')
    .option('--earliest <version>', 'earliest compatible IPMC revision MAJOR.MINOR (default 0.0)')
    .option('--size <bytes>', 'filler bytes in the component image (default 4096)')
    .option('--description <text>', 'description of the upload action (≤ 20 characters)')
    .action((version: string, o: PackOptions) => {
      let bytes: Uint8Array;
      try {
        bytes = buildPackImage(version, o, configFor(o.config), Math.floor(Date.now() / 1000));
      } catch (e) {
        // CommandError and ConfigError carry a `.code` of their own: never read them as a node:fs error.
        if (!(e instanceof CommandError || e instanceof ConfigError || e instanceof RangeError)) throw e;
        ctx.stderr.write(`atcasim hpm pack: ${e.message}\n`);
        ctx.setExit(2);
        return;
      }
      try {
        writeFileSync(o.out, bytes);
      } catch (e) {
        ctx.stderr.write(`atcasim hpm pack: cannot write ${o.out}: ${fileErrorText(e, 'HPM.1 image file')}\n`);
        ctx.setExit(2);
        return;
      }
      ctx.stdout.write(`${o.out}: ${bytes.length} bytes, ${o.component ?? 'payload'} ${formatVersion(parseHpmVersion(version))}\n`);
    });
  hpm
    .command('inspect')
    .description('validate an HPM.1 image (MD5, signature, checksums) and print its header and actions')
    .argument('<file>', 'image file')
    .action((file: string) => {
      let bytes: Uint8Array;
      try {
        bytes = readImageFile(file);
      } catch (e) {
        if (!(e instanceof ImageFileError)) throw e;
        ctx.stderr.write(`atcasim hpm inspect: ${e.message}\n`);
        ctx.setExit(e.kind === 'unreadable' ? 2 : 1);
        return;
      }
      try {
        ctx.stdout.write(`${describeImage(parseHpmImage(bytes)).join('\n')}\n`);
      } catch (e) {
        if (!(e instanceof HpmImageError)) throw e;
        ctx.stderr.write(`atcasim hpm inspect: ${imageErrorText(file, e)}\n`);
        ctx.setExit(1);
      }
    });
}
