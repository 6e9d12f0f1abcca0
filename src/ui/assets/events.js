// Follows the event log on the Events page: asks for what came after the newest row every 2 s
// (of the page's filter) and puts new rows at the top (the table is aria-live, so screen readers hear them).
'use strict';
(() => {
  const table = document.getElementById('events');
  if (!table) return;
  const body = table.querySelector('tbody');
  let after = table.dataset.after;
  let waiting = false;
  async function poll() {
    if (waiting || document.hidden) return;
    waiting = true;
    try {
      const filter = table.dataset.filter ? `&${table.dataset.filter}` : '';
      const response = await fetch(`/ui/events/feed?after=${encodeURIComponent(after)}${filter}`, {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (response.ok) {
        const page = await response.json();
        if (page.rows) {
          body.insertAdjacentHTML('afterbegin', page.rows);
          document.getElementById('no-events')?.remove();
        }
        after = String(page.after);
        table.dataset.after = after;
      }
    } finally {
      waiting = false;
    }
  }
  setInterval(poll, 2000);
})();
