// The HTML timeline's script (src/trace/html.ts inlines it into each page): search, filters,
// expand/collapse all. The page reads without it: every step is a <details> element.
{
  const q = document.getElementById('q');
  const onlyBad = document.getElementById('only-bad');
  const shown = document.getElementById('shown');
  const steps = [...document.querySelectorAll('li.step')];
  const kinds = [...document.querySelectorAll('input[data-kind]')];

  const apply = () => {
    const text = q.value.trim().toLowerCase();
    const on = {};
    for (const k of kinds) on[k.getAttribute('data-kind')] = k.checked;
    let n = 0;
    for (const s of steps) {
      const ok =
        on[s.getAttribute('data-kind')] !== false &&
        (!text || s.getAttribute('data-search').includes(text)) &&
        (!onlyBad.checked ||
          s.classList.contains('bad') ||
          s.classList.contains('overridden') ||
          s.classList.contains('holds-bad'));
      s.classList.toggle('hidden', !ok);
      if (ok) n++;
    }
    // A turn heading shows while any of its steps does.
    for (const t of document.querySelectorAll('li.turn')) {
      let any = false;
      for (let el = t.nextElementSibling; el && !el.classList.contains('turn'); el = el.nextElementSibling)
        if (el.classList.contains('step') && !el.classList.contains('hidden')) any = true;
      t.classList.toggle('hidden', !any);
    }
    shown.textContent = `${n} of ${steps.length} steps`;
  };

  const setAll = (open) => {
    for (const s of steps) {
      const d = s.classList.contains('hidden') ? null : s.querySelector('details');
      if (d) d.open = open;
    }
  };

  q.addEventListener('input', apply);
  onlyBad.addEventListener('change', apply);
  for (const k of kinds) k.addEventListener('change', apply);
  document.getElementById('expand').addEventListener('click', () => setAll(true));
  document.getElementById('collapse').addEventListener('click', () => setAll(false));
  document.addEventListener('keydown', (e) => {
    if (e.key === '/' && document.activeElement !== q) {
      e.preventDefault();
      q.focus();
    }
    if (e.key === 'Escape' && document.activeElement === q) {
      q.value = '';
      apply();
      q.blur();
    }
  });
  apply();
}
