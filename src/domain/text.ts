// Character classes that several rules share: control characters and invisible zero-width ones.

/** C0, DEL, C1 and the Unicode line/paragraph separators. */
export const CONTROL_CHARS = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/; // eslint-disable-line no-control-regex
/** The same, but allowing tab and line breaks, for free text such as notes. */
export const CONTROL_CHARS_BUT_LINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/; // eslint-disable-line no-control-regex
/** Zero-width characters survive copy-paste from web pages and are invisible in a spreadsheet. */
export const ZERO_WIDTH_CHARS = /[\u200B-\u200D\u2060\uFEFF]/g;
/** The JSON Schema pattern for one-line text without control characters. */
export const PLAIN_TEXT_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$';
/** The JSON Schema pattern for free text: lines allowed, other control characters not. */
export const FREE_TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$';
