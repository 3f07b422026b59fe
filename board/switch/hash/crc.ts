/**
 * CRC hashes offered by the switch-chip model, table-driven (one 256-entry table each, built once
 * at module load).
 *
 * - CRC-32/ISO-HDLC, the zlib/IEEE 802.3 CRC: polynomial 0x04C11DB7 reflected (0xEDB88320),
 *   init 0xFFFFFFFF, reflected input and output, final XOR 0xFFFFFFFF. Check value for the ASCII
 *   string "123456789": 0xCBF43926. Equal to `zlib.crc32` (Node ≥ 20.15) on the same bytes.
 * - CRC-16/CCITT-FALSE (a.k.a. CRC-16/IBM-3740): polynomial 0x1021, init 0xFFFF, not reflected,
 *   no final XOR. Check value 0x29B1.
 * Parameters as in the Rocksoft model / the CRC catalogue (dataplane.md §2.2).
 */

function makeCrc32Table(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

function makeCrc16Table(): Uint16Array {
  const t = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[n] = c;
  }
  return t;
}

const CRC32_TABLE = makeCrc32Table();
const CRC16_TABLE = makeCrc16Table();

/**
 * CRC-32 (zlib/IEEE, reflected) of `data[0..len)`.
 * @returns unsigned 32-bit value (0 for empty input)
 */
export function crc32(data: Uint8Array, len: number = data.length): number {
  const n = Math.min(len, data.length);
  let c = -1;
  for (let i = 0; i < n; i++) c = CRC32_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/**
 * CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, MSB first, no final XOR) of `data[0..len)`.
 * @returns 0..65535 (0xFFFF for empty input)
 */
export function crc16ccitt(data: Uint8Array, len: number = data.length): number {
  const n = Math.min(len, data.length);
  let c = 0xffff;
  for (let i = 0; i < n; i++) c = ((c << 8) & 0xff00) ^ CRC16_TABLE[((c >>> 8) ^ data[i]!) & 0xff]!;
  return c;
}
