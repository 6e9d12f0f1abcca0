// E-mail addresses as perch accepts them for recipients: one plain address (local@domain), no
// display name, no comments, no spaces. Deliberately narrower than RFC 5322: an address a person
// types into a form, which every SMTP server accepts as a RCPT TO argument.

const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Whether `value` is an address perch sends to. */
export function isMailAddress(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local.length > 64 || !LOCAL.test(local)) return false;
  // A domain of labels (a dot-less one such as localhost is allowed: tests, private networks).
  return domain.split('.').every((label) => LABEL.test(label));
}

/** The index and text of each recipient that is not an address, for field-level problems. */
export function badAddresses(values: readonly string[]): { index: number; value: string }[] {
  return values.flatMap((value, index) => (isMailAddress(value) ? [] : [{ index, value }]));
}
