// Import: pick or drop a CSV file, see the upload's progress (import.js sends it with XHR), then the
// per-row report with rejected lines and reasons; past imports below. Without scripts the form
// posts multipart and the same report comes back. The upload is read as the API's insert reads it.
import type { FastifyInstance } from 'fastify';
import type { Rejection } from '../../domain/csv-import.ts';
import { PerchError } from '../../domain/errors.ts';
import type { TrackerView } from '../../domain/tracker-status.ts';
import { acceptCsvUploads, readCsvUpload } from '../../http/csv-upload.ts';
import { statusOf } from '../../http/errors.ts';
import { importAccounts, listImportPage, type ImportDeps } from '../../services/import-accounts.ts';
import { estimateForImport } from '../../services/spend.ts';
import { csrfMatches, type UiSession } from '../../services/ui-sessions.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { usd } from '../format.ts';
import { pastImports, rejectedTable, reportSection } from './import-report.ts';

const CSRF_REFUSED = new PerchError(
  'forbidden',
  'This request is missing its CSRF token or it does not match your session; reload the page and try again.',
);

/** Before the upload: what one X account costs; import.js multiplies it by the rows of the file picked. */
function costBefore(imports: ImportDeps): Html {
  const [one] = estimateForImport(imports.config, [{ platform: 'x' }], 1).platforms;
  if (!one) return html``;
  return html`<p id="cost-before" class="hint" aria-live="polite" data-day="${one.perDayUsd}" data-month="${one.perMonthUsd}" data-first="${one.firstReadUsd}">Each X account costs about ${usd(one.perDayUsd)} a day (${usd(one.perMonthUsd)} a month) at the current interval, and once up to ${usd(one.firstReadUsd)} for its first timeline read. Bluesky is free.</p>`;
}

async function importPage(imports: ImportDeps, session: UiSession, result: Html, status: string | null) {
  const past = await listImportPage(imports.store, 20);
  const body = html`<h1>Import</h1>
<p>Upload a CSV file with one username per line, optionally under a <code>username</code> header with <code>platform</code>, <code>tags</code> and <code>note</code> columns.</p>
<form id="import-form" method="post" action="/ui/import" enctype="multipart/form-data">
  ${csrfField(session)}
  <div class="drop">
    <label for="csv-file">CSV file</label>
    <input id="csv-file" name="file" type="file" accept=".csv,.txt,text/csv" required>
  </div>
  <button type="submit">Upload</button>
  <progress id="upload-progress" max="100" value="0" hidden aria-label="Upload progress"></progress>
  <p id="upload-status" role="status">${status ?? ''}</p>
  ${costBefore(imports)}
</form>
<div id="import-result">
${result}
</div>
<section>
<h2>Past imports</h2>
${pastImports(past)}
</section>`;
  return layout({ title: 'Import', session, section: 'import', body, scripts: ['import.js'] });
}

export async function registerImportPage(
  app: FastifyInstance,
  { imports, tracker }: { imports: ImportDeps; tracker: TrackerView | null },
) {
  const { maxImportBytes } = imports.config;
  await acceptCsvUploads(app, maxImportBytes);
  const route = { config: { access: 'public', ui: 'admin' } } as const;

  app.get('/ui/import', route, async (request, reply) =>
    sendPage(reply, await importPage(imports, sessionOf(request), html``, null)),
  );

  // A multipart form carries its CSRF field before the file, checked before the file is read; a
  // script sends x-csrf-token (checked by session.ts).
  app.post(
    '/ui/import',
    { config: { ...route.config, csrf: 'multipart' }, bodyLimit: maxImportBytes },
    async (request, reply) => {
      const session = sessionOf(request);
      try {
        const upload = await readCsvUpload(request, {
          maxBytes: maxImportBytes,
          missing: 'Choose a CSV file to upload.',
          beforeFile: (fields) => {
            const field = fields._csrf;
            const token = field !== undefined && !Array.isArray(field) && field.type === 'field' ? field.value : null;
            if (!csrfMatches(session, token)) throw CSRF_REFUSED;
          },
        });
        const { report, added, estimate } = await importAccounts(imports, {
          source: upload.source,
          actor: session.keyId,
          via: 'dashboard',
        });
        if (added > 0) tracker?.notify();
        const page = await importPage(imports, session, reportSection(report, estimate.platforms), 'Imported.');
        return sendPage(reply, page);
      } catch (thrown) {
        if (!(thrown instanceof PerchError) || thrown.code === 'forbidden') throw thrown;
        // Nothing usable: the problem's detail, and the rejected lines when there are some.
        const ext = thrown.extensions ?? {};
        const rejected = Array.isArray(ext.rejected) ? ext.rejected.filter(isRejection) : [];
        const result = html`${notice('error', thrown.detail)}
${rejectedTable(rejected, ext.rejectedTruncated === true)}`;
        return sendPage(reply, await importPage(imports, session, result, null), statusOf(thrown.code));
      }
    },
  );
}

function isRejection(value: unknown): value is Rejection {
  return value !== null && typeof value === 'object' && 'line' in value && 'value' in value && 'reason' in value;
}
