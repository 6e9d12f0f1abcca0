// TypeBox schemas of what the dashboard is sent: form bodies (url-encoded; every form carries its
// CSRF token in `_csrf`, checked by session.ts before the body is validated), query strings and
// path parameters. Pages read typed values from them, never cast request data.
import { Type, type TProperties } from '@sinclair/typebox';
import { literals } from '../http/schemas.ts';

/** A line of text typed into a form; what it must look like is the use case's to say. */
export const Text = (maxLength = 1_000) => Type.String({ maxLength });

/** A form's body: its fields and the CSRF token, nothing else. */
export const FormBody = <T extends TProperties>(fields: T) =>
  Type.Object({ _csrf: Type.Optional(Text(200)), ...fields }, { additionalProperties: false });

/** A query string of these optional fields, nothing else. */
export const Query = <T extends TProperties>(fields: T) => Type.Object(fields, { additionalProperties: false });

/** A select whose first option, "Any", sends the empty string. */
export const OneOfOrAny = <const T extends readonly string[]>(values: T) => literals(['', ...values] as const);

/** /ui/accounts/:platform/:username, read the way the API reads names (accountRef). */
export const AccountParams = Type.Object({
  platform: Type.String({ maxLength: 50 }),
  username: Type.String({ maxLength: 500 }),
});

/** /ui/keys/:id/…, /ui/webhooks/:id/… */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** The notice a redirect after an action names (`?done=paused`). */
export const DoneQuery = Query({ done: Type.Optional(Text(50)) });
