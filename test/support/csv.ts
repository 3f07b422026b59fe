/** RFC 4180 rows of a CSV text (quoted values may hold commas, newlines and doubled quotes). */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let v = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          v += '"';
          i++;
        } else q = false;
      } else v += c;
    } else if (c === '"') q = true;
    else if (c === ',') {
      row.push(v);
      v = '';
    } else if (c === '\n') {
      row.push(v);
      rows.push(row);
      row = [];
      v = '';
    } else if (c !== '\r') v += c;
  }
  if (v !== '' || row.length) {
    row.push(v);
    rows.push(row);
  }
  return rows;
}

/** Minimal RFC 4180 CSV reader for test oracles: the first row names the columns. */
export function parse(text: string): Array<Record<string, string>> {
  const [head, ...body] = csvRows(text);
  return body.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i] ?? ''])));
}
