/**
 * A small RFC 4180 parser for the tests, written apart from src/output/csv.ts so that the feed is not checked
 * against its own reading of the format. Accepts CRLF or LF line ends; a final line end is optional.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let fieldStarted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        field += char;
      }
      continue;
    }
    if (char === '"') {
      if (field !== "") throw new SyntaxError(`quote inside an unquoted field at ${i}`);
      quoted = true;
      fieldStarted = true;
    } else if (char === ",") {
      row.push(field);
      field = "";
      fieldStarted = true;
    } else if (char === "\r" || char === "\n") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      fieldStarted = false;
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  if (quoted) throw new SyntaxError("unterminated quoted field");
  if (fieldStarted || field !== "") {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
