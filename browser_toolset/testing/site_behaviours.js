// The interpreter of the behaviours each page of a SiteServer carries as data (`data-on-click`, `data-on-hover`,
// `data-on-submit`, `data-on-load`: JSON lists that site_html.py writes), with the mock driver's semantics.
(() => {
  const byIndex = (n) => document.querySelector(`[data-m="${n}"]`);
  const behaviours = (el, kind) => JSON.parse(el.getAttribute(`data-on-${kind}`) || "[]");
  const checkable = (el) => el.matches("input[type=checkbox], input[type=radio]");
  const formValue = (el) => {
    if (!el) return "";
    if (checkable(el)) return el.checked ? "on" : "";
    return "value" in el ? String(el.value) : el.textContent;
  };
  const encode = (text) => encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, "+");
  const fill = (template, fields, quote) => template.replace(/\{([^{}]+)\}/g, (whole, name) => {
    if (!(name in fields)) return whole;
    const value = formValue(byIndex(fields[name]));
    return quote ? encode(value) : value;
  });
  const resolve = (b) => new URL(fill(b.url, b.fields, true), location.href).href;
  const changed = (el) => {
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  };
  const run = (list, source) => {
    for (const b of list) {
      switch (b.kind) {
        case "navigate":
          location.href = resolve(b);
          return;  // the document is on its way out, as in the mock
        case "open_tab":
          window.open(resolve(b), "_blank");
          break;
        case "download": {
          const link = Object.assign(document.createElement("a"), { href: resolve(b), download: b.filename });
          link.hidden = true;
          document.body.append(link);
          link.click();
          link.remove();
          break;
        }
        case "dialog":
          window[b.dialog](b.message);
          break;
        case "log":
          console[b.level](fill(b.text, b.fields, false));
          break;
        case "request":
          fetch(resolve(b), { method: b.method }).catch(() => {});
          break;
        case "submit": {
          const form = b.target === null ? null : byIndex(b.target);
          if (form) run(behaviours(form, "submit"), form);
          break;
        }
        case "toggle": {
          const target = b.target === null ? source : byIndex(b.target);
          if (target && checkable(target)) {
            target.checked = target.type === "radio" ? true : !target.checked;
            changed(target);
          }
          break;
        }
        case "focus": {
          const target = b.target === null ? source : byIndex(b.target);
          if (target) target.focus();
          break;
        }
        case "show":
        case "hide": {
          const target = byIndex(b.target);
          if (target) target.hidden = b.kind === "hide";
          break;
        }
        case "close_tab":
          window.close();
          return;
      }
    }
  };
  // The mock gives a click to the nearest element that handles clicks, and to that one only; a disabled one
  // swallows it.
  const handler = (el) => el.closest("a[href], input[type=checkbox], input[type=radio], [data-on-click]");
  document.addEventListener("click", (event) => {
    const el = event.target instanceof Element ? handler(event.target) : null;
    if (!el) return;
    if (el.matches("[aria-disabled=true]")) {
      event.preventDefault();
      return;
    }
    if (el.hasAttribute("data-on-click") && !el.matches(":disabled")) run(behaviours(el, "click"), el);
  }, true);
  document.addEventListener("mouseover", (event) => {
    const entered = [];
    for (let el = event.target; el instanceof Element; el = el.parentElement) {
      if (event.relatedTarget instanceof Node && el.contains(event.relatedTarget)) break;
      if (el.hasAttribute("data-on-hover")) entered.unshift(el);
    }
    for (const el of entered) run(behaviours(el, "hover"), el);
  });
  document.addEventListener("keydown", (event) => {
    const el = event.target;
    if (!(el instanceof Element) || event.key !== "Enter" || event.isComposing) return;
    if (el.matches("input:not([type=checkbox]):not([type=radio]):not([type=file])")) {
      // Enter in a single-line field: the form's on_submit, else a click on its first button.
      event.preventDefault();
      const form = el.closest("form");
      if (!form) return;
      if (form.hasAttribute("data-on-submit")) {
        run(behaviours(form, "submit"), el);
        return;
      }
      const first = form.querySelector("button");
      if (first) first.click();
    } else if (el.hasAttribute("data-on-click") && !el.matches("a[href], button, input, select, textarea")) {
      // the mock lets Enter click anything clickable that has focus
      event.preventDefault();
      el.click();
    }
  });
  document.addEventListener("submit", (event) => event.preventDefault());
  for (const el of document.querySelectorAll("[data-mixed]")) el.indeterminate = true;
  const load = document.body.getAttribute("data-on-load");
  if (load) run(JSON.parse(load), null);
})();
