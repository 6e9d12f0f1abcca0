// Uploads the chosen (or dropped) CSV file with XHR so the page can show the upload's progress,
// then shows the report the server rendered. Without this script the form posts as multipart.
'use strict';
(() => {
  const self = document.currentScript ? document.currentScript.src : '';
  const form = document.getElementById('import-form');
  if (!form) return;
  const input = document.getElementById('csv-file');
  const progress = document.getElementById('upload-progress');
  const status = document.getElementById('upload-status');
  const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  const drop = form.querySelector('.drop');

  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    if (event.dataTransfer.files.length > 0) {
      input.files = event.dataTransfer.files;
      input.dispatchEvent(new Event('change'));
    }
  });

  // Before the upload: the file's data rows times one X account's cost (an estimate: a platform
  // column, duplicates and rejected lines change it; the report after the upload says exactly).
  const cost = document.getElementById('cost-before');
  const dollars = (n) => `$${n.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  input.addEventListener('change', async () => {
    const file = input.files[0];
    if (!file || !cost) return;
    const lines = (await file.text()).split(/\r?\n/).filter((line) => line.trim() !== '');
    const rows = Math.max(0, lines.length - (/^\s*"?username"?\s*(,|$)/i.test(lines[0] ?? '') ? 1 : 0));
    const per = (name) => Number(cost.dataset[name]);
    cost.textContent =
      `${rows.toLocaleString('en')} row(s): if they are all new X accounts, about ${dollars(rows * per('day'))} a day ` +
      `(${dollars(rows * per('month'))} a month), and once up to ${dollars(rows * per('first'))} for their first timeline reads.`;
  });

  form.addEventListener('submit', (event) => {
    const file = input.files[0];
    if (!file) return;
    event.preventDefault();
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('content-type', 'text/csv');
    xhr.setRequestHeader('x-csrf-token', token);
    progress.hidden = false;
    progress.value = 0;
    status.textContent = `Uploading ${file.name}…`;
    xhr.upload.addEventListener('progress', (e) => {
      if (!e.lengthComputable) return;
      progress.value = Math.round((e.loaded / e.total) * 100);
      status.textContent = `Uploading ${file.name}: ${progress.value} %`;
    });
    xhr.upload.addEventListener('load', () => {
      status.textContent = 'Uploaded; checking the rows…';
    });
    xhr.addEventListener('load', () => {
      const page = new DOMParser().parseFromString(xhr.responseText, 'text/html');
      const main = page.getElementById('main');
      if (main) document.getElementById('main').replaceChildren(...main.childNodes);
      else status.textContent = `The upload failed (${xhr.status}).`;
      window.history.replaceState(null, '', '/ui/import');
      const done = document.getElementById('upload-progress');
      if (done) {
        done.hidden = false;
        done.value = 100;
      }
      const said = document.getElementById('upload-status');
      if (said && xhr.status < 300) said.textContent = `Uploaded ${file.name}: 100 %`;
      document.getElementById('report-title')?.setAttribute('tabindex', '-1');
      document.getElementById('report-title')?.focus();
      // The new content replaced this form: wire the new one up.
      const script = document.createElement('script');
      script.src = self;
      document.head.appendChild(script);
    });
    xhr.addEventListener('error', () => {
      status.textContent = 'The upload failed: the server could not be reached.';
    });
    xhr.send(file);
  });
})();
