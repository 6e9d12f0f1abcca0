// The e-mail of one alert firing: the event said as its sentence, in plain text and in HTML
// readable by common mail clients (inline styles, no remote images, nothing to run).
import { eventSentence, sentenceText } from './event-sentences.ts';

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface AlertMailText {
  subject: string;
  text: string;
  html: string;
}

/** `data` is the `alert.triggered` event's data (account and rule included). */
export function alertMailText(data: Record<string, unknown>, ruleId: string, firedAt: number): AlertMailText {
  const sentence = sentenceText(eventSentence({ type: 'alert.triggered', data }));
  const when = new Date(firedAt).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const page = `/ui/alerts/${ruleId}`;
  const subject = sentence.length > 150 ? `${sentence.slice(0, 149)}…` : sentence;
  const text = `${sentence}\n\nFired ${when}.\nThe rule and when it fired: ${page} on your perch dashboard.\n`;
  const html = [
    '<!doctype html><html><body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a;background:#ffffff">',
    `<p style="font-size:16px;line-height:1.4;margin:0 0 12px">${escape(sentence)}</p>`,
    `<p style="font-size:13px;color:#555555;margin:0">Fired ${escape(when)}. The rule and when it fired: <code>${escape(page)}</code> on your perch dashboard.</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}
