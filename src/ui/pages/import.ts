// Import: pick or drop a CSV file, see the upload's progress (import.js sends it with XHR), then the
// per-row report with rejected lines and reasons; past imports below. Without scripts the form
// posts multipart and the same report comes back.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { importTooLarge, type Rejection } from '../../domain/csv-import.ts';
import { PerchError } from '../../domain/errors.ts';
import type { AppDeps } from '../../http/deps.ts';
import { statusOf } from '../../http/errors.ts';
import { commitImport, listImportPage, planImport, type ImportReport } from '../../services/import-accounts.ts';
import { csrfMatches, type UiSession } from '../../services/ui-sessions.ts';
import { num, when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { estimateForImport } from '../../services/spend.ts';
import type { TrackingEstimate } from '../../domain/spend.ts';

const usd = (n: number) => `$${n.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** What the added accounts will cost (X; Bluesky is free). */
function estimateText(estimate: TrackingEstimate[]): Html {
  if (estimate.length === 0) return html`<p id="cost-after">No accounts were added: tracking costs nothing more.</p>`;
  return html`<p id="cost-after">Tracking the added accounts: ${estimate.map(
    (e) =>
      html`${num(e.accounts)} ${e.platform} account(s), ${usd(e.perDayUsd)} a day (${usd(e.perMonthUsd)} a month)${e.firstReadUsd > 0 ? `, and once up to ${usd(e.firstReadUsd)} for their first timeline reads` : ''}. `,
  )}</p>`;
}

function reportSection(report: ImportReport, estimate: TrackingEstimate[] = []): Html {
  return html`<section id="report" aria-labelledby="report-title"><h2 id="report-title">Import report</h2>
<dl class="figures"><dt>Rows read</dt><dd>${num(report.received)}</dd><dt>Inserted</dt><dd>${num(report.inserted)}</dd>
<dt>Reactivated</dt><dd>${num(report.reactivated)}</dd><dt>Already tracked</dt><dd>${num(report.alreadyTracked)}</dd>
<dt>Duplicates</dt><dd>${num(report.duplicates)}</dd><dt>Rejected</dt><dd>${num(report.rejectedCount)}</dd></dl>
${estimateText(estimate)}
${report.warnings.map((w) => html`<p class="notice">${w}</p>`)}
${rejectedTable(report.rejected, report.rejectedTruncated)}
<p><a href="/ui/accounts">See the accounts</a></p></section>`;
}

function rejectedTable(rejected: Rejection[], truncated: boolean): Html {
  if (rejected.length === 0) return html``;
  return html`<div class="table-wrap"><table id="rejected"><caption>Rejected lines${truncated ? ' (the first 1,000)' : ''}</caption>
<thead><tr><th scope="col" class="n">Line</th><th scope="col">Value</th><th scope="col">Reason</th></tr></thead>
<tbody>${rejected.map((r) => html`<tr><td class="n">${r.line}</td><td><code>${r.value}</code></td><td>${r.reason}</td></tr>`)}</tbody></table></div>`;
}

/** Before the upload: what one X account costs; import.js multiplies it by the rows of the file picked. */
function costBefore(deps: AppDeps): Html {
  const [one] = estimateForImport(deps.config, [{ platform: 'x' }], 1).platforms;
  if (!one) return html``;
  return html`<p id="cost-before" class="hint" aria-live="polite" data-day="${one.perDayUsd}" data-month="${one.perMonthUsd}" data-first="${one.firstReadUsd}">Each X account costs about ${usd(one.perDayUsd)} a day (${usd(one.perMonthUsd)} a month) at the current interval, and once up to ${usd(one.firstReadUsd)} for its first timeline read. Bluesky is free.</p>`;
}

async function importPage(deps: AppDeps, session: UiSession, result: Html, status: string | null): Promise<Html> {
  const past = await listImportPage(deps.store, 20);
  const body = html`<h1>Import</h1>
<p>Upload a CSV file with one username per line, optionally under a <code>username</code> header with <code>platform</code>, <code>tags</code> and <code>note</code> columns.</p>
<form id="import-form" method="post" action="/ui/import" enctype="multipart/form-data">${csrfField(session)}
  <div class="drop"><label for="csv-file">CSV file</label><input id="csv-file" name="file" type="file" accept=".csv,.txt,text/csv" required></div>
  <button type="submit">Upload</button>
  <progress id="upload-progress" max="100" value="0" hidden aria-label="Upload progress"></progress>
  <p id="upload-status" role="status">${status ?? ''}</p>
  ${costBefore(deps)}
</form>
<div id="import-result">${result}</div>
<section><h2>Past imports</h2>${
    past.length === 0
      ? html`<p class="hint">No imports yet.</p>`
      : html`<div class="table-wrap"><table id="past-imports"><thead><tr><th scope="col">When</th><th scope="col">By</th><th scope="col" class="n">Rows</th><th scope="col" class="n">Inserted</th><th scope="col" class="n">Rejected</th></tr></thead>
<tbody>${past.map((i) => html`<tr><td>${when(i.createdAt)}</td><td>${i.createdBy ?? '—'}</td><td class="n">${num(i.received)}</td><td class="n">${num(i.inserted)}</td><td class="n">${num(i.rejectedCount)}</td></tr>`)}</tbody></table></div>`
  }</section>`;
  return layout({ title: 'Import', session, section: 'import', body, scripts: ['import.js'] });
}

/** The cut the multipart parser makes at the size limit, made an error. */
async function* whole(file: AsyncIterable<Buffer> & { truncated: boolean }, maxBytes: number): AsyncIterable<Buffer> {
  for await (const chunk of file) yield chunk;
  if (file.truncated) throw importTooLarge(maxBytes);
}

/** Reads the upload into an import plan: raw CSV from the script, or the form's multipart. */
async function planOf(request: FastifyRequest, session: UiSession, deps: AppDeps) {
  if (!request.isMultipart()) {
    const body = request.body as AsyncIterable<Buffer> | null | undefined;
    if (!body || typeof body !== 'object') throw new PerchError('missing_file', 'Choose a CSV file to upload.');
    return planImport(body, deps.config);
  }
  // The form sends its CSRF field before the file, so the token is checked before the file is read.
  let csrfOk = false;
  for await (const part of request.parts()) {
    if (part.type === 'field' && part.fieldname === '_csrf') csrfOk = csrfMatches(session, part.value);
    else if (part.type === 'file') {
      if (!csrfOk)
        throw new PerchError(
          'forbidden',
          'This request is missing its CSRF token or it does not match your session; reload the page and try again.',
        );
      return planImport(whole(part.file, deps.config.maxImportBytes), deps.config);
    }
  }
  throw new PerchError('missing_file', 'Choose a CSV file to upload.');
}

export async function importRoutes(app: FastifyInstance, deps: AppDeps) {
  await app.register(multipart, { limits: { fileSize: deps.config.maxImportBytes, files: 1, fields: 2, parts: 3 } });
  app.addContentTypeParser('text/csv', (request, payload, done) => {
    if (Number(request.headers['content-length'] ?? 0) > deps.config.maxImportBytes)
      return done(importTooLarge(deps.config.maxImportBytes), undefined);
    done(null, payload);
  });
  const send = async (request: FastifyRequest, result: Html, status: string | null) =>
    (await importPage(deps, sessionOf(request), result, status)).text;

  app.get('/ui/import', { config: { access: 'public', ui: 'admin' } }, async (request, reply) => {
    return reply.type('text/html; charset=utf-8').send(await send(request, html``, null));
  });

  // A multipart form checks its own CSRF field (see planOf); a script sends x-csrf-token.
  app.post(
    '/ui/import',
    { config: { access: 'public', ui: 'admin', csrf: 'multipart' }, bodyLimit: deps.config.maxImportBytes },
    async (request, reply) => {
      const session = sessionOf(request);
      try {
        const plan = await planOf(request, session, deps);
        const report = await commitImport(deps.store, plan, {
          actor: session.keyId,
          source: 'dashboard',
          clock: deps.clock,
        });
        if (report.inserted + report.reactivated > 0) deps.tracker?.notify();
        const { platforms } = estimateForImport(deps.config, plan.rows, report.inserted + report.reactivated);
        return reply
          .type('text/html; charset=utf-8')
          .send(await send(request, reportSection(report, platforms), 'Imported.'));
      } catch (thrown) {
        if (!(thrown instanceof PerchError) || thrown.code === 'forbidden') throw thrown;
        // Nothing usable: the problem's detail, and the rejected lines when there are some.
        const ext = (thrown.extensions ?? {}) as { rejected?: Rejection[]; rejectedTruncated?: boolean };
        const result = html`${notice('error', thrown.detail)}${rejectedTable(ext.rejected ?? [], ext.rejectedTruncated ?? false)}`;
        return reply
          .code(statusOf(thrown.code))
          .type('text/html; charset=utf-8')
          .send(await send(request, result, null));
      }
    },
  );
}
