function (op, arg) {
  /*
   * browser-toolset's in-page accessibility walker.
   *
   * The whole file is one function expression. The Selenium driver runs it with WebDriver BiDi
   * `script.callFunction` in the "browser-toolset" sandbox realm, so page scripts can neither see nor tamper with
   * its state, and calls it as fn(op, arg):
   *
   *   snapshot       {sparse?}       -> {document, viewport: {width, height}, root: node}; with sparse: true,
   *                                     every node field at its default is left out (see encodeNode())
   *                  {compact?, filter?, depth?, budget?, chars?, root?, since?}
   *                                  -> the same, pruned for a partial read (see prune()), in the compact
   *                                     encoding, with `truncated` when the budget of nodes ran out or the walk
   *                                     stopped at about `chars` characters of print (see spend()), and `stamp`
   *                                     (see changeStamp()), and `frames` (how many, when it has any); {document,
   *                                     unchanged: true} when `since` is the current stamp
   *   element        {key}           -> the Element (BiDi serializes it with a sharedId), or null when gone
   *                  {frames}        -> for each key of `frames` (frame elements), frameFacts(): the driver joins
   *                                     the documents of frames the walk cannot enter (other origins) to the tree
   *   center         {key, probe?}   -> (a promise of) {x, y} centre of the visible part of the border box, once
   *                                     the page has loaded and the element stopped moving (settledCenter()),
   *                                     scrolling it into view first when it is not wholly visible, with probe
   *                                     also `at`: elementAt there; {error} without a box; null
   *   scrollIntoView {key}           -> true, or null when gone
   *   setValue       {key, value}    -> {value} the control's value afterwards (a string), {error}, or null
   *   text           {frameMark?}    -> the page's visible text (main content first); with frameMark, a frame
   *                                     the walk cannot enter stands as a line of frameMark and its key
   *   inspect        {selector}      -> [{testname, key, role, name, description, value, placeholder, states,
   *                                     level}] for every match, light DOM first, then open shadow roots
   *   elementAt      {x, y, of?}     -> {key, role, name, context, action, within?}: what a click there hits
   *   keyTarget      {key, moved?}   -> the same for what Enter or Space at the focused element activates, or null
   *
   * node = {role, name, key, value, description, placeholder, states, level, bounds, visible, inViewport,
   *         interactive, children} (and inputType for the typed <input>s of TYPED_INPUTS, action for links and
   *         submit controls: actionOf()), bounds = [x, y, width, height] in top-level viewport CSS px or null.
   *
   * State that must outlive one call (the document id, the element keys) lives on the sandbox's global object,
   * which BiDi creates afresh for every new document. Everything else is per call: `run` holds the caches of one
   * op (computed styles, hidden-ness, roles), so nothing stale survives into the next call.
   */
  "use strict";

  const HTML_NS = "http://www.w3.org/1999/xhtml";
  const SVG_NS = "http://www.w3.org/2000/svg";
  const MATHML_NS = "http://www.w3.org/1998/Math/MathML";

  // The order read_page prints states in; must match browser_toolset.values.STATE_TOKENS.
  const STATE_ORDER = ["checked", "unchecked", "mixed", "selected", "pressed", "expanded", "collapsed", "disabled",
    "multiline", "readonly", "required", "invalid", "focused", "modal", "multiselectable"];

  const ARIA_ROLES = new Set(("alert alertdialog application article associationlist associationlistitemkey " +
    "associationlistitemvalue banner blockquote button caption cell checkbox code columnheader combobox comment " +
    "complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic " +
    "grid gridcell group heading image img insertion link list listbox listitem log main mark marquee math menu " +
    "menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation " +
    "progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox sectionfooter " +
    "sectionheader separator slider spinbutton status strong subscript suggestion superscript switch tab table " +
    "tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem graphics-document " +
    "graphics-object graphics-symbol").split(" "));

  // Roles whose name may come from their content (ARIA 1.2 "nameFrom: contents").
  const NAME_FROM_CONTENT = new Set(("button cell checkbox columnheader comment gridcell heading link menuitem " +
    "menuitemcheckbox menuitemradio option radio row rowheader sectionheader sectionfooter switch tab tooltip " +
    "treeitem doc-backlink doc-biblioref doc-glossref doc-noteref").split(" "));

  // Roles a user acts on: their nodes are interactive whether or not the page made them focusable.
  const INTERACTIVE_ROLES = new Set(("link button checkbox radio textbox searchbox combobox listbox option menuitem " +
    "menuitemcheckbox menuitemradio tab switch slider spinbutton treeitem").split(" "));

  const CHECKABLE_ROLES = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
  const RANGE_ROLES = new Set(["slider", "spinbutton", "scrollbar", "progressbar", "meter"]);
  const VALUE_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider", "progressbar", "meter",
    "scrollbar"]);

  // ARIA attributes that keep role="none"/"presentation" from taking effect (ARIA 1.2 presentational conflicts).
  const GLOBAL_ARIA = ["aria-atomic", "aria-busy", "aria-controls", "aria-current", "aria-describedby",
    "aria-description", "aria-details", "aria-disabled", "aria-dropeffect", "aria-errormessage", "aria-flowto",
    "aria-grabbed", "aria-haspopup", "aria-invalid", "aria-keyshortcuts", "aria-label", "aria-labelledby",
    "aria-live", "aria-owns", "aria-relevant", "aria-roledescription"];

  // Elements whose content is never rendered as such: skipped everywhere without a style lookup.
  const SKIPPED_TAGS = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title", "base"]);

  const TEXT_INPUT_TYPES = new Set(["text", "search", "email", "tel", "url", "password", "number", "date",
    "datetime-local", "month", "time", "week"]);

  // Input types whose values have a shape the role does not tell (a date is a textbox, a colour a button): the
  // node carries the type so read_page can say what a value must look like.
  const TYPED_INPUTS = new Set(["date", "time", "datetime-local", "month", "week", "number", "email", "tel", "url",
    "color", "range"]);

  const ASCII_WS = /[ \t\n\f\r]+/g;
  const EMPTY = [0, 0, 0, 0];
  const UNCLIPPED = [-Infinity, -Infinity, Infinity, Infinity];

  // ---------------------------------------------------------------------------------------------------------
  // Per-document state: the document id and the element keys.

  const STATE_SLOT = "__browserToolsetWalker";

  function documentState() {
    let state = globalThis[STATE_SLOT];
    // A sandbox realm belongs to one document, but document.open() can swap the document under it.
    if (!state || state.doc !== document) {
      state = { doc: document, id: randomId(), counter: 0, keyOf: new WeakMap(), byKey: new Map() };
      Object.defineProperty(globalThis, STATE_SLOT, { value: state, configurable: true, writable: true });
    }
    return state;
  }

  function randomId() {
    // crypto.randomUUID needs a secure context; getRandomValues works on plain-http pages too.
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const state = documentState();

  // The key stays with the element for the document's life (a WeakMap, so removed elements can be collected),
  // and the counter never goes back, so a key is never reused within the document.
  function keyFor(el) {
    let key = state.keyOf.get(el);
    if (key === undefined) {
      key = "e" + (++state.counter);
      state.keyOf.set(el, key);
      state.byKey.set(key, new WeakRef(el));
    }
    return key;
  }

  function elementFor(key) {
    const ref = typeof key === "string" ? state.byKey.get(key) : undefined;
    const el = ref ? ref.deref() : undefined;
    if (!el) {
      if (ref) state.byKey.delete(key);
      return null;
    }
    return el.isConnected ? el : null;
  }

  function pruneKeys() {
    for (const [key, ref] of state.byKey) if (!ref.deref()) state.byKey.delete(key);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Per-call caches.

  const run = { styles: new Map(), props: new Map(), excluded: new Map(), roles: new Map(), editable: new Map(),
    before: new Map(), after: new Map(), focused: null, walkBudget: null,
    viewportOnly: false, textOnly: false };

  function view(node) {
    return (node.ownerDocument || node).defaultView || window;
  }

  // One getComputedStyle per element per call: the declaration is live, so later reads of it cost no new style
  // resolution as long as nothing writes to the DOM in between (and nothing here does before all reads are done).
  function style(el) {
    let s = run.styles.get(el);
    if (s === undefined) {
      s = view(el).getComputedStyle(el);
      run.styles.set(el, s);
    }
    return s;
  }

  // The handful of computed properties the walkers look at, read once per element into a plain object: every read
  // of a CSSStyleDeclaration property is a trip through the CSSOM, and the same element is asked several times.
  const NOT_RENDERED = Object.freeze({ display: "none", visibility: "hidden", opacity: "1", position: "static",
    overflowX: "visible", overflowY: "visible", clip: "auto", clipPath: "none", cursor: "auto",
    contentVisibility: "visible" });

  function props(el) {
    let p = run.props.get(el);
    if (p === undefined) {
      const s = style(el);
      const display = s.display;
      if (display === "none") {
        p = NOT_RENDERED;
      } else {
        const position = s.position;
        // The overflow shorthand is one read where both axes agree (nearly always: "visible"); the axes are read
        // apart only when it says something else.
        const overflow = s.overflow;
        const both = overflow === "visible";
        p = {
          display,
          visibility: s.visibility,
          opacity: s.opacity,
          position,
          overflowX: both ? overflow : s.overflowX,
          overflowY: both ? overflow : s.overflowY,
          // clip only applies to absolutely positioned boxes.
          clip: position === "absolute" || position === "fixed" ? s.clip : "auto",
          clipPath: s.clipPath,
          // Page text has no use for the cursor (it tells clickable elements apart, for read_page).
          cursor: run.textOnly ? "auto" : s.cursor,
          contentVisibility: s.contentVisibility,
        };
      }
      run.props.set(el, p);
    }
    return p;
  }

  // isContentEditable costs a style lookup; most documents have no editable content at all.
  function mayBeEditable(el) {
    const doc = el.ownerDocument;
    let editable = run.editable.get(doc);
    if (editable === undefined) {
      editable = doc.designMode === "on" || !!doc.querySelector("[contenteditable]");
      run.editable.set(doc, editable);
    }
    return editable && el.isContentEditable;
  }

  function isEditingHost(el) {
    return mayBeEditable(el) && !(el.parentElement && el.parentElement.isContentEditable);
  }

  function isHTML(el, name) {
    return el.namespaceURI === HTML_NS && (name === undefined || el.localName === name);
  }

  function collapse(text) {
    return text ? text.replace(ASCII_WS, " ").trim() : "";
  }

  // Names keep U+00A0 at their ends when an author put it there (aria-label="label&nbsp;"): only ASCII whitespace
  // is collapsed and trimmed.
  function collapseName(text) {
    return text ? trimAscii(text.replace(ASCII_WS, " ")) : "";
  }

  function trimAscii(text) {
    return text.replace(/^[ \t\n\f\r]+|[ \t\n\f\r]+$/g, "");
  }

  function nonBlank(text) {
    return !!text && NON_BLANK.test(text);
  }

  const NON_BLANK = /[^ \t\n\f\r]/;

  // ---------------------------------------------------------------------------------------------------------
  // The flat tree: shadow roots replace their host's children, slots show their assigned nodes.

  function flatChildren(el) {
    if (el.shadowRoot) {
      state.unobservable = true;
      return el.shadowRoot.childNodes;
    }
    if (el.localName === "slot" && isHTML(el)) {
      const assigned = el.assignedNodes();
      return assigned.length ? assigned : el.childNodes;
    }
    return el.childNodes;
  }

  function flatParent(node) {
    if (node.assignedSlot) return node.assignedSlot;
    const parent = node.parentNode;
    if (!parent) return null;
    if (parent.nodeType === 11) return parent.host || null;
    return parent.nodeType === 1 ? parent : null;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Hidden-ness, as the accessible-name computation sees it.

  // Whether `el` and its whole subtree are out of the accessibility tree: display:none or aria-hidden="true" on it
  // or a flat-tree ancestor, or not rendered at all (content of a closed <details>, of content-visibility:hidden,
  // a host's light child that no slot shows). Memoised per call; the snapshot walk fills it top-down.
  function excluded(el) {
    let hidden = run.excluded.get(el);
    if (hidden === undefined && isHTML(el, "area")) {
      // An area has no box of its own: it is as hidden as the image it lies on.
      const img = imageOfArea(el);
      hidden = !img || excluded(img);
      run.excluded.set(el, hidden);
    }
    if (hidden === undefined) {
      hidden = excludesItself(el);
      if (!hidden) {
        const parent = flatParent(el);
        hidden = parent ? excluded(parent) || hidesChild(parent, el) : false;
      }
      run.excluded.set(el, hidden);
    }
    return hidden;
  }

  function excludesItself(el) {
    return el.getAttribute("aria-hidden") === "true" || props(el).display === "none";
  }

  function hidesChild(parent, child) {
    if (isHTML(parent, "details") && !parent.open) return !isDetailsSummary(parent, child);
    if (parent.shadowRoot && child.parentNode === parent && !child.assignedSlot) return true;
    return props(parent).contentVisibility === "hidden";
  }

  function isDetailsSummary(details, el) {
    if (!details || !isHTML(details, "details") || !isHTML(el, "summary") || el.parentElement !== details) return false;
    for (const child of details.children) if (isHTML(child, "summary")) return child === el;
    return false;
  }

  function visibilityHidden(el) {
    if (isHTML(el, "area")) {
      const img = imageOfArea(el);
      return !img || visibilityHidden(img);
    }
    return props(el).visibility !== "visible";
  }

  function hiddenForName(el) {
    return excluded(el) || visibilityHidden(el);
  }

  function textHidden(text) {
    const parent = flatParent(text);
    return parent ? hiddenForName(parent) : false;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Roles (HTML-AAM implicit roles, explicit role = first valid token).

  function roleOf(el) {
    let role = run.roles.get(el);
    if (role === undefined) {
      role = computeRole(el);
      run.roles.set(el, role);
    }
    return role;
  }

  function computeRole(el) {
    const explicit = explicitRole(el);
    // role="none" loses to focusability and global ARIA attributes (ARIA's presentational-role conflict rule).
    if (explicit && !(explicit === "none" && (isFocusable(el) || hasGlobalAria(el)))) {
      // A role that needs a context (a list item, an option, a tree item) outside it is ignored: the element
      // reads as what its tag makes it.
      const context = REQUIRED_CONTEXT[explicit];
      if (!context || hasContext(el, context)) return explicit;
    }
    return implicitRole(el);
  }

  // The first valid token of the role attribute. A region or form needs a name to be one (else the next token, or
  // the tag's own role, stands).
  function explicitRole(el) {
    const attr = el.getAttribute("role");
    if (!attr) return null;
    for (const token of attr.trim().toLowerCase().split(/\s+/)) {
      if (ARIA_ROLES.has(token) || /^doc-[a-z]+$/.test(token)) {
        if (token === "presentation") return "none";
        if (token === "image") return "img";
        if (token === "directory") return "list";
        if ((token === "region" || token === "form") && !hasAuthorName(el)) continue;
        return token;
      }
    }
    return null;
  }

  // The roles an explicit role needs around it (ARIA's required accessibility parent), generic wrappers between
  // them left out of account.
  const REQUIRED_CONTEXT = {
    listitem: new Set(["list"]),
    option: new Set(["listbox", "group"]),
    treeitem: new Set(["tree", "group"]),
  };

  function hasContext(el, roles) {
    for (let a = accessibleParent(el); a; a = accessibleParent(a)) {
      const role = roleOf(a);
      if (role !== "generic" && role !== "none") return roles.has(role);
    }
    return false;
  }

  // The element an element sits under in the accessibility tree: the one that aria-owns it, else its flat-tree
  // parent (the document's root element has none).
  function accessibleParent(el) {
    const owner = ownerOf(el);
    if (owner) return owner;
    const parent = flatParent(el);
    return parent && parent !== el.ownerDocument.documentElement ? parent : null;
  }

  // aria-owns moves elements under their owner. Read once per root (document or shadow root) and call: the first
  // owner in document order wins an element, and an owner can own neither itself nor one of its ancestors.
  function ownedIn(root) {
    const maps = run.owned || (run.owned = new Map());
    let owned = maps.get(root);
    if (owned === undefined) {
      owned = new Map();
      if (typeof root.querySelectorAll === "function") {
        for (const owner of root.querySelectorAll("[aria-owns]")) {
          for (const target of idrefs(owner, "aria-owns")) {
            if (!owned.has(target) && !ownsAround(owned, target, owner)) owned.set(target, owner);
          }
        }
      }
      maps.set(root, owned);
    }
    return owned;
  }

  // Whether `owner` sits under `target` already (in the DOM or through what is owned so far): owning it would
  // make a loop.
  function ownsAround(owned, target, owner) {
    for (let a = owner; a; a = owned.get(a) || a.parentElement) if (a === target) return true;
    return false;
  }

  function ownerOf(el) {
    return ownedIn(el.getRootNode()).get(el) || null;
  }

  function hasGlobalAria(el) {
    for (const name of GLOBAL_ARIA) if (el.hasAttribute(name)) return true;
    return false;
  }

  function isFocusable(el) {
    if (el.hasAttribute("tabindex")) return true;
    if (!isHTML(el)) return false;
    switch (el.localName) {
      case "a": case "area": return el.hasAttribute("href");
      case "button": case "select": case "textarea": return !el.disabled;
      case "input": return el.type !== "hidden" && !el.disabled;
      case "summary": return isDetailsSummary(el.parentElement, el);
      case "iframe": return true;
      default: return isEditingHost(el);
    }
  }

  function implicitRole(el) {
    if (el.namespaceURI === SVG_NS) {
      if (el.localName === "svg") return "img";
      if (el.localName === "a" && (el.hasAttribute("href") || el.hasAttribute("xlink:href"))) return "link";
      return "none";
    }
    if (el.namespaceURI === MATHML_NS) return el.localName === "math" ? "math" : "generic";
    if (!isHTML(el)) return "generic";
    switch (el.localName) {
      case "a": return el.hasAttribute("href") ? "link" : "generic";
      case "area": return el.hasAttribute("href") ? "link" : "none";
      case "address": return "group";
      case "article": return "article";
      case "aside":
        return insideSectioning(el, "article,aside,nav,section") && !hasAuthorName(el) ? "generic" : "complementary";
      case "blockquote": return "blockquote";
      case "button": return "button";
      case "caption": case "figcaption": return "caption";
      case "code": return "code";
      case "datalist": return "listbox";
      case "dd": return "definition";
      case "del": case "s": return "deletion";
      case "details": case "fieldset": case "hgroup": case "optgroup": return "group";
      case "dfn": case "dt": return "term";
      case "dialog": return "dialog";
      case "dl": case "menu": case "ol": case "ul": return "list";
      case "em": return "emphasis";
      case "figure": return "figure";
      case "footer": return insideSectioning(el, LANDMARK_SCOPES) ? "generic" : "contentinfo";
      case "header": return insideSectioning(el, LANDMARK_SCOPES) ? "generic" : "banner";
      case "form": return hasAuthorName(el) ? "form" : "generic";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "hr": return "separator";
      case "html": return "document";
      case "iframe": case "frame": return "iframe";
      case "img": return imageRole(el);
      case "input": return inputRole(el);
      case "ins": return "insertion";
      case "li": return presentationalOwner(el, el.parentElement, LIST_TAGS) ? "none" : "listitem";
      case "main": return "main";
      case "mark": return "mark";
      case "math": return "math";
      case "meter": return "meter";
      case "nav": return "navigation";
      case "option": return "option";
      case "output": return "status";
      case "p": return "paragraph";
      case "progress": return "progressbar";
      case "search": return "search";
      case "section": return hasAuthorName(el) ? "region" : "generic";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "strong": return "strong";
      case "sub": return "subscript";
      case "sup": return "superscript";
      // Only the first <summary> of a <details> is its button; any other is a plain element.
      case "summary": return isDetailsSummary(el.parentElement, el) ? "button" : "generic";
      case "table": return "table";
      // A row group is a wrapper unless something makes it more (focus, ARIA attributes), as in browsers' trees.
      case "tbody": case "thead": case "tfoot":
        if (presentationalOwner(el, el.closest("table"), TABLE_TAGS)) return "none";
        return isFocusable(el) || hasGlobalAria(el) ? "rowgroup" : "generic";
      case "td":
        if (presentationalOwner(el, el.closest("table"), TABLE_TAGS)) return "none";
        return insideGrid(el) ? "gridcell" : "cell";
      case "th":
        if (presentationalOwner(el, el.closest("table"), TABLE_TAGS)) return "none";
        return headerCellRole(el);
      case "textarea": return "textbox";
      case "time": return "time";
      case "tr": return presentationalOwner(el, el.closest("table"), TABLE_TAGS) ? "none" : "row";
      default: return isEditingHost(el) ? "textbox" : "generic";
    }
  }

  const LIST_TAGS = new Set(["ul", "ol", "menu"]);
  const TABLE_TAGS = new Set(["table"]);

  // role="none" on a list or table reaches the items, rows and cells it must own: they are presentational too,
  // unless focus or a global ARIA attribute keeps them (the same conflict rule as for the owner itself).
  function presentationalOwner(el, owner, tags) {
    return !!owner && isHTML(owner) && tags.has(owner.localName) && roleOf(owner) === "none" && !isFocusable(el) &&
      !hasGlobalAria(el);
  }

  const LANDMARK_SCOPES = "article,aside,main,nav,section,[role=article],[role=complementary],[role=main]," +
    "[role=navigation],[role=region]";

  function insideSectioning(el, selector) {
    const parent = el.parentElement;
    return !!(parent && parent.closest(selector));
  }

  function hasAuthorName(el) {
    return nonBlank(el.getAttribute("aria-label")) || idrefs(el, "aria-labelledby").length > 0 ||
      nonBlank(el.getAttribute("title"));
  }

  function imageRole(el) {
    // alt="" marks a decorative image, unless something else says it is meant to be perceived.
    if (el.getAttribute("alt") === "" && !el.hasAttribute("title") && !hasGlobalAria(el) && !isFocusable(el)) {
      return "none";
    }
    return "img";
  }

  function inputRole(el) {
    const list = el.hasAttribute("list") && el.list;
    switch (el.type) {
      case "button": case "image": case "reset": case "submit": case "file": case "color": return "button";
      case "checkbox": return el.hasAttribute("switch") ? "switch" : "checkbox";
      case "radio": return "radio";
      case "range": return "slider";
      case "number": return "spinbutton";
      case "search": return list ? "combobox" : "searchbox";
      case "hidden": return "none";
      case "email": case "tel": case "text": case "url": return list ? "combobox" : "textbox";
      default: return "textbox";
    }
  }

  function insideGrid(cell) {
    const table = cell.closest("table");
    const role = table && explicitRole(table);
    return role === "grid" || role === "treegrid";
  }

  function headerCellRole(th) {
    const scope = (th.getAttribute("scope") || "").toLowerCase();
    if (scope === "row" || scope === "rowgroup") return "rowheader";
    if (scope === "col" || scope === "colgroup") return "columnheader";
    // No scope: a header in <thead> or in a row of headers labels its column; the first cell of a row that also
    // holds data cells labels its row.
    const row = th.parentElement;
    if (!row || (row.parentElement && row.parentElement.localName === "thead")) return "columnheader";
    let hasData = false;
    for (const cell of row.children) if (cell.localName === "td") hasData = true;
    return hasData && row.firstElementChild === th ? "rowheader" : "columnheader";
  }

  // ---------------------------------------------------------------------------------------------------------
  // Accessible name and description (W3C accname 1.2, with HTML-AAM's host-language rules).

  function idrefs(el, attr) {
    const value = el.getAttribute(attr);
    if (!value) return [];
    const root = el.getRootNode();
    const lookup = root.getElementById ? root : el.ownerDocument;
    const out = [];
    for (const id of value.trim().split(/\s+/)) {
      const target = id && lookup.getElementById(id);
      if (target) out.push(target);
    }
    return out;
  }

  // Elements the host language can name without ARIA (labels, alt, legend, caption, value...).
  const NATIVELY_NAMED = new Set(["input", "select", "textarea", "button", "img", "area", "fieldset", "table",
    "figure", "optgroup", "option", "meter", "output", "progress", "iframe", "frame", "svg"]);

  function accessibleName(el) {
    // Most elements (generic containers, paragraphs, lists...) can only be named by their author: skip the full
    // computation when they carry nothing that could name them.
    if (!NAME_FROM_CONTENT.has(roleOf(el)) && !NATIVELY_NAMED.has(el.localName) && el.namespaceURI !== SVG_NS &&
      !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby") && !el.hasAttribute("title")) {
      return "";
    }
    const c = { root: el, visited: new Set(), inReference: false, includeHidden: false, recursion: false };
    return collapseName(textAlternative(el, c));
  }

  function accessibleDescription(el, name) {
    const description = plainDescription(el, name);
    // An invalid field's error message belongs with its description (ARIA exposes it only while invalid).
    const invalid = el.getAttribute("aria-invalid");
    if (!invalid || invalid === "false") return description;
    const errors = idrefs(el, "aria-errormessage").map((ref) => textAlternative(ref, {
      root: el, visited: new Set([el]), inReference: true, recursion: true, includeHidden: false,
    }));
    const error = collapse(errors.join(" "));
    return error && !description.includes(error) ? collapse(`${description} ${error}`) : description;
  }

  function plainDescription(el, name) {
    const refs = idrefs(el, "aria-describedby");
    if (refs.length) {
      const visited = new Set([el]);
      const parts = refs.map((ref) => textAlternative(ref, {
        root: el, visited, inReference: true, recursion: true, includeHidden: hiddenForName(ref),
      }));
      const text = collapse(parts.join(" "));
      if (text) return text;
    }
    const description = collapse(el.getAttribute("aria-description"));
    if (description) return description;
    // A title that did not end up as the name is the description (HTML-AAM).
    const title = collapse(el.getAttribute("title"));
    return title && title !== name ? title : "";
  }

  // accname's "compute the text alternative of the current node". `c` carries the traversal: the root whose name
  // is being computed, the nodes already used (each contributes once), whether we are inside an
  // aria-labelledby/-describedby traversal, whether hidden nodes count (the referenced node was itself hidden),
  // and whether this is recursion rather than the root.
  function textAlternative(node, c) {
    if (node.nodeType === 3) return c.includeHidden || !textHidden(node) ? node.data : "";
    if (node.nodeType !== 1) return "";
    const el = node;

    // 2A: hidden, and not reached through a reference to a hidden node.
    if (!c.includeHidden) {
      if (excluded(el)) return "";
      // visibility:hidden hides the element's own text, but a descendant may be visibility:visible again.
      if (visibilityHidden(el)) return c.recursion ? contentText(el, c) : "";
    }

    // 2B: aria-labelledby.
    if (!c.inReference) {
      const labelled = labelledByText(el, c);
      if (labelled !== null && nonBlank(labelled)) return labelled;
    }
    c.visited.add(el);

    const role = roleOf(el);
    // 2C: a control embedded in the label of another widget contributes its value.
    if (c.recursion && el !== c.root) {
      const embedded = embeddedControlText(el, role, c);
      if (embedded !== null) return embedded;
    }

    // 2D: aria-label (ignored on <slot>, which is only a placeholder for its assigned nodes).
    if (!isHTML(el, "slot")) {
      const label = el.getAttribute("aria-label");
      if (nonBlank(label)) return trimAscii(label);
    }

    const presentational = role === "none";
    // 2E: the host language's own labelling (label elements, alt, legend, caption, value of buttons...).
    if (!presentational) {
      const native = hostLanguageText(el, c);
      if (nonBlank(native)) return native;
    }

    // 2F-2H: name from content, for roles that allow it and for everything inside a name being computed. At the
    // root, content is trimmed like rendered text (a leading &nbsp; goes too).
    let content = "";
    if (c.recursion || NAME_FROM_CONTENT.has(role)) {
      content = contentText(el, c);
      if (c.recursion ? nonBlank(content) : content.trim() !== "") return c.recursion ? content : content.trim();
    }

    // 2I: tooltip, then the HTML-AAM last resorts.
    if (!presentational) {
      const title = el.getAttribute("title");
      if (nonBlank(title)) return trimAscii(title);
      if (!c.recursion && isTextField(el)) {
        const placeholder = el.getAttribute("placeholder") || el.getAttribute("aria-placeholder");
        if (nonBlank(placeholder)) return trimAscii(placeholder);
      }
      if (!c.recursion && isHTML(el, "input") && el.type === "image") return "Submit";
      if (!c.recursion && isHTML(el, "input") && el.type === "file") return fileButtonText(el);
    }
    // Inside a name, whitespace-only content still separates its neighbours.
    return c.recursion ? content : "";
  }

  // A file input without a label is named as the browser names it, by what it draws (in the browser's English):
  // Chromium by its button, "Choose File" ("Choose Files"); Firefox by its button and the note beside it,
  // "Browse… No file selected." (or the file's name, or how many were chosen).
  function fileButtonText(el) {
    if (!/\bFirefox\//.test(navigator.userAgent)) return el.multiple ? "Choose Files" : "Choose File";
    const files = el.files ? el.files.length : 0;
    let note = el.multiple ? "No files selected." : "No file selected.";
    if (files === 1) note = el.files[0].name;
    else if (files > 1) note = `${files} files selected.`;
    return `Browse\u2026 ${note}`;
  }

  // aria-labelledby's text, or null when the element names no existing element.
  function labelledByText(el, c) {
    const refs = idrefs(el, "aria-labelledby");
    if (!refs.length) return null;
    const parts = [];
    for (const ref of refs) {
      if (c.visited.has(ref)) continue;
      c.visited.add(ref);
      // A referenced node that is hidden is named with its whole subtree, hidden parts included.
      const includeHidden = c.includeHidden || hiddenForName(ref);
      parts.push(trimAscii(textAlternative(ref, { ...c, inReference: true, recursion: true, includeHidden })));
    }
    return parts.filter(Boolean).join(" ");
  }

  function isTextField(el) {
    if (isHTML(el, "textarea")) return true;
    return isHTML(el, "input") && TEXT_INPUT_TYPES.has(el.type);
  }

  function embeddedControlText(el, role, c) {
    if (role === "textbox" || role === "searchbox") {
      if (isHTML(el, "input")) return el.type === "password" ? "" : el.value;
      if (isHTML(el, "textarea")) return el.value;
      return el.textContent;
    }
    if (role === "combobox" || role === "listbox") {
      if (isHTML(el, "select")) {
        return Array.from(el.selectedOptions, (option) => option.label || option.text).join(" ");
      }
      if (isHTML(el, "input")) return el.value;
      const chosen = chosenOptions(el);
      if (chosen.length) return chosen.map((option) => contentText(option, c)).join(" ");
      return role === "listbox" ? "" : contentText(el, c);
    }
    if (RANGE_ROLES.has(role)) {
      const valueText = el.getAttribute("aria-valuetext");
      if (nonBlank(valueText)) return trimAscii(valueText);
      const now = el.getAttribute("aria-valuenow");
      if (nonBlank(now)) return trimAscii(now);
      if (isHTML(el, "input") || isHTML(el, "progress") || isHTML(el, "meter")) return String(el.value);
      return "";
    }
    // A menu in a label is a popup, not text; its items are not part of the label.
    if (role === "menu") return "";
    return null;
  }

  // The selected options of an ARIA combobox or listbox: among its descendants and the elements it owns or
  // controls (where the popup listbox of a combobox usually lives), following aria-owns further down.
  function chosenOptions(el) {
    const out = [];
    const seen = new Set();
    const search = (scope) => {
      if (seen.has(scope)) return;
      seen.add(scope);
      for (const candidate of [scope, ...scope.querySelectorAll("[role~=option]")]) {
        if (candidate.getAttribute("aria-selected") === "true" && roleOf(candidate) === "option") out.push(candidate);
      }
      for (const owner of [scope, ...scope.querySelectorAll("[aria-owns]")]) {
        for (const owned of idrefs(owner, "aria-owns")) search(owned);
      }
    };
    search(el);
    for (const controlled of idrefs(el, "aria-controls")) search(controlled);
    return out;
  }

  function hostLanguageText(el, c) {
    if (el.namespaceURI === SVG_NS) {
      for (const child of el.children) {
        if (child.localName === "title" && child.namespaceURI === SVG_NS) return child.textContent;
      }
      return "";
    }
    if (!isHTML(el)) return "";
    switch (el.localName) {
      case "input": {
        const type = el.type;
        if (type === "button" || type === "submit" || type === "reset") {
          if (el.hasAttribute("value")) return el.value;
          return type === "submit" ? "Submit" : type === "reset" ? "Reset" : "";
        }
        if (type === "image") {
          const alt = el.getAttribute("alt");
          if (nonBlank(alt)) return alt;
          const labels = labelsText(el, c);
          if (nonBlank(labels)) return labels;
          return el.getAttribute("value") || "";
        }
        return labelsText(el, c);
      }
      case "button": case "select": case "textarea": case "meter": case "output": case "progress":
        return labelsText(el, c);
      case "img": case "area":
        return el.getAttribute("alt") || "";
      case "fieldset":
        return childText(el, "legend", c);
      case "table":
        return childText(el, "caption", c);
      case "figure":
        return childText(el, "figcaption", c);
      case "optgroup":
        return el.getAttribute("label") || "";
      case "option":
        return el.hasAttribute("label") ? el.label : "";
      default:
        return "";
    }
  }

  // `el.labels` searches the element's whole tree on every read (in Chromium), so a page of many fields pays for
  // its size once per field: the labels of every control are gathered once per tree instead (`label.control` is
  // the same association, and querySelectorAll keeps the document order `labels` has).
  function labelsOf(el) {
    if (!("labels" in el)) return null;
    const root = el.getRootNode();
    const maps = run.labelMaps || (run.labelMaps = new Map());
    let map = maps.get(root);
    if (map === undefined) {
      map = new Map();
      if (typeof root.querySelectorAll === "function") {
        for (const label of root.querySelectorAll("label")) {
          const control = label.control;
          if (!control) continue;
          const list = map.get(control);
          if (list) list.push(label);
          else map.set(control, [label]);
        }
      }
      maps.set(root, map);
    }
    return map.get(el) || null;
  }

  function labelsText(el, c) {
    const labels = labelsOf(el);
    if (!labels || !labels.length) return "";
    const parts = [];
    for (const label of labels) {
      if (c.visited.has(label)) continue;
      // Like a reference, a hidden label still names its control.
      const includeHidden = c.includeHidden || hiddenForName(label);
      parts.push(textAlternative(label, { ...c, recursion: true, includeHidden }));
    }
    return parts.join(" ");
  }

  function childText(el, tag, c) {
    for (const child of el.children) {
      if (isHTML(child, tag)) return c.visited.has(child) ? "" : textAlternative(child, { ...c, recursion: true });
    }
    return "";
  }

  // Name from content: ::before, the flat-tree children (and aria-owns'd elements), ::after. Children rendered as
  // blocks (anything but display:inline) are set apart by spaces; inline ones are joined as they render.
  function contentText(el, c) {
    const rc = c.recursion ? c : { ...c, recursion: true };
    let out = pseudoText(el, "::before", rc.includeHidden);
    const children = Array.from(flatChildren(el));
    for (const owned of idrefs(el, "aria-owns")) if (!children.includes(owned)) children.push(owned);
    const svgParent = el.namespaceURI === SVG_NS;
    for (const child of children) {
      if (child.nodeType === 3) {
        out += textAlternative(child, rc);
        continue;
      }
      if (child.nodeType !== 1 || SKIPPED_TAGS.has(child.localName)) continue;
      if (svgParent && (child.localName === "title" || child.localName === "desc")) continue;
      if (isHTML(child, "br")) {
        out += " ";
        continue;
      }
      let text;
      if (rc.visited.has(child)) {
        // Already used in this computation; only its own aria-labelledby (with the used nodes skipped) remains.
        text = rc.inReference ? "" : labelledByText(child, rc) || "";
      } else {
        text = textAlternative(child, rc);
      }
      out += isInline(child) ? text : " " + text + " ";
    }
    return out + pseudoText(el, "::after", rc.includeHidden);
  }

  function isInline(el) {
    const display = props(el).display;
    return display === "inline" || display === "contents" || display === "none";
  }

  // The text a ::before or ::after adds to its element's name. Cached per call: nested names (a row, its cells,
  // a link in a cell) walk the same elements again.
  function pseudoText(el, which, includeHidden) {
    if (el.namespaceURI !== HTML_NS) return "";
    const cache = which === "::before" ? run.before : run.after;
    let pseudo = cache.get(el);
    if (pseudo === undefined) {
      pseudo = { text: "", hidden: false };
      const ps = view(el).getComputedStyle(el, which);
      const content = ps.content;
      if (content && content !== "none" && content !== "normal" && ps.display !== "none") {
        pseudo.text = cssContentText(content);
        if (pseudo.text && ps.display !== "inline") pseudo.text = " " + pseudo.text + " ";
        // A hidden ::before/::after shows nothing, so it names nothing (but inside a hidden node a reference
        // reaches, where hidden text counts).
        pseudo.hidden = ps.visibility !== "visible";
      }
      cache.set(el, pseudo);
    }
    return pseudo.hidden && !includeHidden ? "" : pseudo.text;
  }

  // The text of a computed `content` value: its strings (attr() is already resolved in computed values), or, when
  // the value carries alternative text after a "/", that alternative instead. Images and counters contribute
  // nothing.
  function cssContentText(content) {
    let rendered = "";
    let alternative = null;
    let i = 0;
    const n = content.length;
    while (i < n) {
      const ch = content[i];
      if (ch === '"' || ch === "'") {
        let value = "";
        i++;
        while (i < n && content[i] !== ch) {
          if (content[i] === "\\") {
            const hex = /^[0-9a-fA-F]{1,6}[ \t\n]?/.exec(content.slice(i + 1, i + 8));
            if (hex) {
              value += String.fromCodePoint(parseInt(hex[0], 16) || 0xfffd);
              i += 1 + hex[0].length;
            } else {
              value += content[i + 1] || "";
              i += 2;
            }
          } else {
            value += content[i++];
          }
        }
        i++;
        if (alternative === null) rendered += value;
        else alternative += value;
      } else if (ch === "/") {
        alternative = "";
        i++;
      } else if (ch === "(") {
        // Skip a function's arguments (url(), counter(), image-set()...), quoted parts included.
        let depth = 1;
        i++;
        while (i < n && depth) {
          const inner = content[i];
          if (inner === '"' || inner === "'") {
            i++;
            while (i < n && content[i] !== inner) i += content[i] === "\\" ? 2 : 1;
          } else if (inner === "(") depth++;
          else if (inner === ")") depth--;
          i++;
        }
      } else {
        i++;
      }
    }
    return alternative === null ? rendered : alternative;
  }

  // ---------------------------------------------------------------------------------------------------------
  // States, level, value.

  function deepActiveElement() {
    let active = document.activeElement;
    for (;;) {
      if (!active) return null;
      if (active.shadowRoot && active.shadowRoot.activeElement) {
        active = active.shadowRoot.activeElement;
      } else if ((active.localName === "iframe" || active.localName === "frame") && safeContentDocument(active)) {
        const inner = safeContentDocument(active).activeElement;
        if (!inner || inner === inner.ownerDocument.body) return active;
        active = inner;
      } else {
        break;
      }
    }
    return active === document.body ? null : active;
  }

  function safeContentDocument(frame) {
    try {
      return frame.contentDocument || null;
    } catch (e) {
      return null;
    }
  }

  function statesOf(el, role, inherited) {
    const found = new Set();
    const aria = (name) => el.getAttribute(name);
    const html = isHTML(el);

    if (CHECKABLE_ROLES.has(role) || el.hasAttribute("aria-checked")) {
      let checked = null;
      if (html && el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) {
        checked = el.indeterminate && el.type === "checkbox" ? "mixed" : el.checked ? "true" : "false";
      } else {
        checked = aria("aria-checked");
        if (checked === null && CHECKABLE_ROLES.has(role)) checked = "false";
      }
      if (checked === "true") found.add("checked");
      else if (checked === "mixed") found.add("mixed");
      else if (checked === "false") found.add("unchecked");
    }
    if (aria("aria-selected") === "true" || (html && el.localName === "option" && el.selected)) found.add("selected");
    const pressed = aria("aria-pressed");
    if (pressed === "true") found.add("pressed");
    else if (pressed === "mixed") found.add("mixed");

    const expanded = aria("aria-expanded");
    if (expanded === "true") found.add("expanded");
    else if (expanded === "false") found.add("collapsed");
    else if (html && el.localName === "summary" && isDetailsSummary(el.parentElement, el)) {
      found.add(el.parentElement.open ? "expanded" : "collapsed");
    } else if (html && el.localName === "details") {
      found.add(el.open ? "expanded" : "collapsed");
    }

    // aria-disabled on a container disables the controls inside it; its plain text and boxes need no marker.
    const inheritsDisabled = inherited.disabled && (INTERACTIVE_ROLES.has(role) || isFocusable(el));
    if (inheritsDisabled || aria("aria-disabled") === "true" || (html && nativelyDisabled(el))) found.add("disabled");
    // A textarea (or an ARIA textbox that says so) takes line breaks: Enter types one rather than submitting.
    if ((html && el.localName === "textarea") || (role === "textbox" && aria("aria-multiline") === "true")) {
      found.add("multiline");
    }
    if (aria("aria-readonly") === "true" || (html && (el.localName === "input" || el.localName === "textarea") &&
      el.readOnly && (el.localName === "textarea" || TEXT_INPUT_TYPES.has(el.type)))) found.add("readonly");
    if (aria("aria-required") === "true" || (html && (el.localName === "input" || el.localName === "select" ||
      el.localName === "textarea") && el.required)) found.add("required");
    const invalid = aria("aria-invalid");
    if ((invalid && invalid !== "false") || (html && (el.localName === "input" || el.localName === "select" ||
      el.localName === "textarea") && nativelyInvalid(el))) found.add("invalid");
    if (el === run.focused) found.add("focused");
    if ((role === "dialog" || role === "alertdialog") &&
      (aria("aria-modal") === "true" || (html && el.localName === "dialog" && matches(el, ":modal")))) {
      found.add("modal");
    }
    if (aria("aria-multiselectable") === "true" || (html && el.localName === "select" && el.multiple)) {
      found.add("multiselectable");
    }
    return STATE_ORDER.filter((token) => found.has(token));
  }

  // A native control fails its own constraints (required, type=email, min/max, pattern...) once a user has had a
  // go at it: :user-invalid, which a page's untouched empty required fields do not match. A value set through
  // setValue (form_input) is a user's edit too, though the browser does not count script-fired events; and a
  // browser without :user-invalid falls back to the validity of a filled-in control.
  function nativelyInvalid(el) {
    if (!el.willValidate) return false;
    let userInvalid;
    try {
      userInvalid = el.matches(":user-invalid");
    } catch (e) {
      return el.value !== "" && !el.validity.valid;
    }
    return userInvalid || (!!state.edited && state.edited.has(el) && !el.validity.valid);
  }

  // Remembers, for the document's life, that setValue edited `el` (see nativelyInvalid).
  function markEdited(el) {
    if (!state.edited) state.edited = new WeakSet();
    state.edited.add(el);
  }

  function nativelyDisabled(el) {
    switch (el.localName) {
      case "button": case "input": case "select": case "textarea": case "optgroup": case "option": case "fieldset":
        return matches(el, ":disabled");
      default:
        return false;
    }
  }

  function matches(el, selector) {
    try {
      return el.matches(selector);
    } catch (e) {
      return false;
    }
  }

  function levelOf(el, role) {
    const attr = parseInt(el.getAttribute("aria-level"), 10);
    if (attr >= 1 && (role === "heading" || role === "treeitem" || role === "listitem" || role === "row" ||
      role === "comment")) return attr;
    if (role !== "heading") return null;
    const match = isHTML(el) && /^h([1-6])$/.exec(el.localName);
    return match ? Number(match[1]) : 2;
  }

  function valueOf(el, role) {
    const html = isHTML(el);
    if (html && el.localName === "input" && el.type === "file") {
      return el.files && el.files.length ? Array.from(el.files, (f) => f.name).join(", ") : "";
    }
    if (html && el.localName === "input" && el.type === "color") return el.value;
    if (!VALUE_ROLES.has(role)) return null;
    if (RANGE_ROLES.has(role)) {
      const valueText = el.getAttribute("aria-valuetext");
      if (nonBlank(valueText)) return collapse(valueText);
      const now = el.getAttribute("aria-valuenow");
      if (nonBlank(now)) return collapse(now);
      if (html && el.localName === "input") return el.value;
      if (html && el.localName === "progress") return el.position === -1 ? null : String(el.value);
      if (html && el.localName === "meter") return String(el.value);
      return null;
    }
    if (html && el.localName === "input") {
      // Never a password: only whether the field is filled.
      if (el.type === "password") return el.value ? "•••" : "";
      return collapse(el.value);
    }
    if (html && el.localName === "textarea") return collapse(el.value);
    if (html && el.localName === "select") {
      return collapse(Array.from(el.selectedOptions, (option) => option.label || option.text).join(", "));
    }
    return collapse(el.textContent);
  }

  function isInteractive(el, role, p, parentPointer) {
    if (INTERACTIVE_ROLES.has(role)) return true;
    if (role !== "iframe" && isFocusable(el) && el.tabIndex >= 0 && !(isHTML(el) && nativelyDisabled(el))) return true;
    if (mayBeEditable(el)) return true;
    if (isHTML(el, "summary") && isDetailsSummary(el.parentElement, el)) return true;
    // Pages wire clicks to plain elements; a pointer cursor that starts here (not inherited) is the usual tell.
    if (p && p.cursor === "pointer" && !parentPointer) return true;
    return el.hasAttribute("onclick");
  }

  // ---------------------------------------------------------------------------------------------------------
  // Geometry: boxes, clips, visibility.
  //
  // A clip is [x0, y0, x1, y1] in top-level viewport coordinates. Each element carries two: `hard`, what
  // overflow:hidden/clip ancestors (and clip/clip-path) leave visible, which decides visibility; and `view`, which
  // also cuts at scroll containers and the viewport, and decides in-viewport. Which ancestors clip an element
  // depends on its containing block, so three pairs travel down: for in-flow, absolute and fixed descendants.

  function intersect(a, b) {
    const x0 = Math.max(a[0], b[0]);
    const y0 = Math.max(a[1], b[1]);
    const x1 = Math.min(a[2], b[2]);
    const y1 = Math.min(a[3], b[3]);
    return x1 > x0 && y1 > y0 ? [x0, y0, x1, y1] : EMPTY;
  }

  function overlaps(box, clip) {
    return box[2] > 0 && box[3] > 0 && box[0] < clip[2] && box[1] < clip[3] && box[0] + box[2] > clip[0] &&
      box[1] + box[3] > clip[1];
  }

  // Any painted area counts, however small: a 1x1 image with alt text (a status dot, a tracking pixel that says
  // what it is) or a tiny image button is real content. Boxes that only pretend to be there are caught elsewhere:
  // zero width or height here, the clip idioms of "visually hidden" text in clipsAway, an alt="" image by its role.
  function hasArea(box) {
    return box[2] > 0 && box[3] > 0;
  }

  function viewportSize(win) {
    const doc = win.document;
    const scroller = doc.compatMode === "BackCompat" && doc.body ? doc.body : doc.documentElement;
    if (!scroller) return { width: win.innerWidth, height: win.innerHeight };
    return { width: scroller.clientWidth, height: scroller.clientHeight };
  }

  // The clip/clip-path idioms that hide content while keeping it rendered ("visually hidden").
  function clipsAway(p) {
    const clip = p.clip;
    if (clip !== "auto") {
      const nums = clip.match(/-?[\d.]+(?=px)/g);
      if (nums && nums.length === 4) {
        const [top, right, bottom, left] = nums.map(Number);
        if (right - left <= 1 || bottom - top <= 1) return true;
      }
    }
    const clipPath = p.clipPath;
    if (clipPath !== "none") {
      if (/^inset\(\s*(50%|[5-9]\d%|100%)/.test(clipPath)) return true;
      if (/^(circle|ellipse)\(\s*0(px|%)?[\s)]/.test(clipPath)) return true;
    }
    return false;
  }

  function clipsOverflow(p) {
    return p.overflowX !== "visible" || p.overflowY !== "visible";
  }

  // Per axis: overflow hidden/clip cuts content off for good (no user can scroll to it), overflow auto/scroll only
  // moves it out of view. Pages mix the two ("overflow-y: auto; overflow-x: hidden" on list boxes, the user-agent
  // style of a <select size=4>), so a row scrolled out of such a box is visible, only not in the viewport.
  function hardClipsOverflow(p) {
    return hardAxis(p.overflowX) || hardAxis(p.overflowY);
  }

  function hardAxis(overflow) {
    return overflow === "hidden" || overflow === "clip";
  }

  // The part of the plane a box's hard overflow clipping leaves: its edges on the hidden/clip axes, unbounded on
  // the scrollable ones.
  function hardOverflowClip(p, rect) {
    const x = hardAxis(p.overflowX);
    const y = hardAxis(p.overflowY);
    return [x ? rect[0] : -Infinity, y ? rect[1] : -Infinity, x ? rect[2] : Infinity, y ? rect[3] : Infinity];
  }

  function frameOrigin(frame, box) {
    const s = style(frame);
    return [box[0] + frame.clientLeft + (parseFloat(s.paddingLeft) || 0),
      box[1] + frame.clientTop + (parseFloat(s.paddingTop) || 0)];
  }

  // The scope of a frame's top: nothing inherited, the frame's clips for every kind of box.
  function topScope(dx, dy, clip) {
    const pair = { hard: clip.hard, view: clip.view };
    return {
      flow: pair, abs: pair, fixed: pair, dx, dy, ariaHidden: false, inert: false, transparent: false,
      disabled: false, pointer: false, dropdown: null, hidden: false, hiddenContentOf: null,
    };
  }

  const HIDDEN_INFO = { p: NOT_RENDERED, box: null, excludedHere: true, selfVisible: false, areaVisible: false,
    inView: false, textFlags: false, child: null };

  // Everything the walkers need to know about one element before its children: its computed properties, its box,
  // its own visibility flags and the scope its children see. `excludedHere` marks a subtree without boxes.
  function enter(el, scope) {
    if (scope.hidden) {
      run.excluded.set(el, true);
      return { ...HIDDEN_INFO, child: scope };
    }
    const p = props(el);
    if (p.display === "none") {
      run.excluded.set(el, true);
      return { ...HIDDEN_INFO, child: { ...scope, hidden: true } };
    }
    const ariaHidden = el.getAttribute("aria-hidden") === "true";
    run.excluded.set(el, scope.ariaHidden || ariaHidden);
    const position = p.position;
    const clips = position === "fixed" ? scope.fixed : position === "absolute" ? scope.abs : scope.flow;
    const transparent = p.opacity === "0";
    const inert = el.hasAttribute("inert");
    const clippedAway = clipsAway(p);
    const selfVisible = !scope.ariaHidden && !ariaHidden && !scope.inert && !inert && !scope.transparent &&
      !transparent && !clippedAway && p.visibility === "visible";
    const own = { ariaHidden, inert, transparent, clippedAway };
    // Page text asks for the box of only some elements (those holding text, controls, frames): there the box is
    // measured when first asked for, unless the child scope needs it now (an element that clips its overflow).
    if (run.textOnly && p.display !== "contents" && !clipsOverflow(p)) {
      return new LazyBoxInfo(el, scope, p, clips, selfVisible, ariaHidden, childScope(el, scope, p, null, clips, own));
    }
    let box = null;
    if (p.display !== "contents") {
      const r = el.getBoundingClientRect();
      box = [r.left + scope.dx, r.top + scope.dy, r.width, r.height];
    }
    const areaVisible = !!box && hasArea(box) && overlaps(box, clips.hard);
    const inView = areaVisible && overlaps(box, intersect(clips.hard, clips.view));
    const child = childScope(el, scope, p, box, clips, own);
    return { p, box, excludedHere: false, selfVisible, areaVisible, inView, textFlags: selfVisible, child,
      ariaHidden };
  }

  // enter()'s answer with the box (and what depends on it) measured on first use.
  class LazyBoxInfo {
    constructor(el, scope, p, clips, selfVisible, ariaHidden, child) {
      this.el = el;
      this.scope = scope;
      this.clips = clips;
      this.p = p;
      this.excludedHere = false;
      this.selfVisible = selfVisible;
      this.textFlags = selfVisible;
      this.ariaHidden = ariaHidden;
      this.child = child;
      this.measured = null;
    }

    get box() {
      return this.measure().box;
    }

    get areaVisible() {
      return this.measure().areaVisible;
    }

    get inView() {
      return this.measure().inView;
    }

    measure() {
      if (!this.measured) {
        const r = this.el.getBoundingClientRect();
        const box = [r.left + this.scope.dx, r.top + this.scope.dy, r.width, r.height];
        const clips = this.clips;
        const areaVisible = hasArea(box) && overlaps(box, clips.hard);
        const inView = areaVisible && overlaps(box, intersect(clips.hard, clips.view));
        this.measured = { box, areaVisible, inView };
      }
      return this.measured;
    }
  }

  // What an element passes down: inherited flags and the clips for its in-flow, absolute and fixed descendants.
  // Most elements change none of it, and share their parent's scope.
  function childScope(el, scope, p, box, clips, own) {
    const overflow = clipsOverflow(p);
    const positioned = p.position !== "static";
    const ariaDisabled = el.getAttribute("aria-disabled") === "true";
    const pointer = p.cursor === "pointer";
    // Content hidden by its element (closed <details>, content-visibility:hidden) is laid out but not rendered.
    const hidesContent = p.contentVisibility === "hidden" || (isHTML(el, "details") && !el.open);
    if (!overflow && !positioned && !own.clippedAway && !own.ariaHidden && !own.inert && !own.transparent &&
      !ariaDisabled && !hidesContent && pointer === scope.pointer && clips === scope.flow &&
      !scope.hiddenContentOf) {
      return scope;
    }
    let flow = clips;
    if (own.clippedAway) {
      flow = { hard: EMPTY, view: EMPTY };
    } else if (overflow && box) {
      const rect = [box[0], box[1], box[0] + box[2], box[1] + box[3]];
      const hard = hardClipsOverflow(p) ? intersect(clips.hard, hardOverflowClip(p, rect)) : clips.hard;
      flow = { hard, view: intersect(clips.view, rect) };
    }
    return {
      flow,
      abs: positioned ? flow : scope.abs,
      fixed: scope.fixed,
      dx: scope.dx,
      dy: scope.dy,
      ariaHidden: scope.ariaHidden || own.ariaHidden,
      inert: scope.inert || own.inert,
      transparent: scope.transparent || own.transparent,
      disabled: scope.disabled || ariaDisabled,
      pointer,
      dropdown: null,
      hidden: false,
      hiddenContentOf: hidesContent ? el : null,
    };
  }

  // Whether a run of text is rendered somewhere a sighted user can see it: in its parent's box, or, for parents
  // without area (zero-size boxes whose text overflows, display:contents) and for text moved by text-indent, where
  // the text itself lands. On top of the box rules, text is left out when it lies wholly outside the document's
  // scrollable area (left:-9999px, top:-9999px: no scrolling reaches it) or its colour cannot be told from what is
  // behind it (inkVisible). Both read_page's text lines and get_page_text go through here, so they agree.
  function textRunVisible(nodes, info, scope) {
    if (!info.textFlags || scope.hidden || scope.hiddenContentOf || scope.dropdown) return null;
    // Whitespace alone shows nothing whatever its colour or place: it is left to the box rules (page text keeps
    // the space between words), and costs no style reads. `inked` is the element the text rules read.
    const parent = flatParent(nodes[0]);
    const inked = parent && nodes.some((t) => nonBlank(t.data)) ? parent : null;
    let box = info.box;
    let seen;
    if (box && hasArea(box) && !(inked && indentedOf(inked))) {
      seen = { visible: info.areaVisible, inView: info.inView };
    } else {
      const range = nodes[0].ownerDocument.createRange();
      range.setStartBefore(nodes[0]);
      range.setEndAfter(nodes[nodes.length - 1]);
      const r = range.getBoundingClientRect();
      box = [r.left + scope.dx, r.top + scope.dy, r.width, r.height];
      const clips = scope.flow;
      const visible = hasArea(box) && overlaps(box, clips.hard);
      seen = { visible, inView: visible && overlaps(box, intersect(clips.hard, clips.view)) };
    }
    if (seen.visible && inked && (offPage(box, scope, inked) || !inkVisible(inked))) {
      return { visible: false, inView: false };
    }
    return seen;
  }

  // Whether `box` (top-level viewport px) lies wholly outside the scrollable area of `el`'s document: above its
  // top, or before its start edge (the left, or for a right-to-left page the left end of its scroll range). No
  // scrolling brings such a box into view: it is how "screen reader only" text is parked at left:-9999px.
  function offPage(box, scope, el) {
    if (!box) return false;
    const page = pageArea(el.ownerDocument);
    if (box[1] - scope.dy + page.scrollY + box[3] > 0 && box[0] - scope.dx + page.scrollX + box[2] > page.start) {
      return false;
    }
    // Inside a scroll container (a carousel scrolled to its end) the box may only be scrolled out of its view. The
    // root and body are left out: their overflow is the page's own scrolling, already counted above.
    for (let a = el; a; a = flatParent(a)) {
      if (a.localName === "html" || a.localName === "body") continue;
      const p = props(a);
      if (/auto|scroll/.test(p.overflowX) || /auto|scroll/.test(p.overflowY)) return false;
    }
    return true;
  }

  // Per document and call: its scroll offset and where its scrollable area starts horizontally.
  function pageArea(doc) {
    const cache = run.pages || (run.pages = new Map());
    let page = cache.get(doc);
    if (page === undefined) {
      const win = doc.defaultView || window;
      const root = doc.documentElement;
      let start = 0;
      if (root && style(root).direction === "rtl") {
        const scroller = doc.scrollingElement || root;
        start = Math.min(0, scroller.clientWidth - scroller.scrollWidth);
      }
      page = { scrollX: win.scrollX, scrollY: win.scrollY, start };
      cache.set(doc, page);
    }
    return page;
  }

  // Whether text inside `el` (its text nodes' parent) is drawn in ink that can be told from what is behind it.
  // Left out: a fill colour with alpha 0 (color: transparent, rgba(…, 0)) unless something else draws the glyphs
  // (a text shadow, a text stroke, a background clipped to the text); and an opaque fill within 8 per channel of
  // the opaque background colour behind it (backdrop). What cannot be judged for sure (other colour syntaxes,
  // translucent colours, background images, boxes positioned over other content) counts as readable: leaving
  // shown text out is worse than keeping hidden text in. (A filter or blend mode changes text and background
  // alike, so equal colours stay equal.) One judgement per element per call, only for elements holding text.
  function inkVisible(el) {
    const ink = inkOf(el);
    if (ink.visible === undefined) {
      if (ink.colour === undefined) ink.colour = style(el).color;
      ink.visible = judgeInk(el, ink);
    }
    return ink.visible;
  }

  // The text properties of an element that the text rules read, each read once per element per call and only
  // when asked for (a control's value needs no text-indent; text without a box to show in needs no colour).
  function inkOf(el) {
    const cache = run.ink || (run.ink = new Map());
    let ink = cache.get(el);
    if (ink === undefined) {
      ink = { colour: undefined, indented: undefined, visible: undefined };
      cache.set(el, ink);
    }
    return ink;
  }

  function indentedOf(el) {
    const ink = inkOf(el);
    if (ink.indented === undefined) ink.indented = parseFloat(style(el).textIndent) !== 0;
    return ink.indented;
  }

  function judgeInk(el, ink) {
    const colour = parseColour(ink.colour);
    if (seenAgainst(el, colour)) return true;
    // The colour cannot be seen. The glyphs may still be drawn: in another fill colour (-webkit-text-fill-color
    // wins over color; read only here, as most text never sets it), by a shadow, by a stroke, or by a background
    // clipped to the text.
    const s = style(el);
    const fillText = s.getPropertyValue("-webkit-text-fill-color");
    let fill = colour;
    if (fillText && fillText !== ink.colour) {
      fill = parseColour(fillText);
      if (seenAgainst(el, fill)) return true;
    }
    if (s.textShadow && s.textShadow !== "none") return true;
    if (parseFloat(s.getPropertyValue("-webkit-text-stroke-width")) > 0) return true;
    return fill.a === 0 && clippedToText(el);
  }

  // Whether text of colour `c` inside `el` can be seen, or that cannot be told (null: another colour syntax; a
  // translucent colour): false for alpha 0 and for an opaque colour within 8 per channel of the backdrop's.
  function seenAgainst(el, c) {
    if (!c || (c.a > 0 && c.a < 1)) return true;
    if (c.a === 0) return false;
    const bg = backdrop(el);
    return !bg || Math.abs(bg.r - c.r) > 8 || Math.abs(bg.g - c.g) > 8 || Math.abs(bg.b - c.b) > 8 ||
      paintedBetween(el, bg.painter);
  }

  // Gradient text: a transparent fill over a background (of the element or an ancestor) clipped to the glyphs.
  function clippedToText(el) {
    for (let a = el; a; a = flatParent(a)) {
      const s = style(a);
      if (/text/.test(s.getPropertyValue("background-clip") + s.getPropertyValue("-webkit-background-clip"))) {
        return true;
      }
    }
    return false;
  }

  // rgb()/rgba() as computed styles serialize them (and the keyword transparent); null for anything else.
  // Memoised per call: a page uses a handful of colours, each asked about for every text run. The objects are
  // shared, so callers never change them.
  function parseColour(text) {
    const cache = run.colours || (run.colours = new Map());
    let colour = cache.get(text);
    if (colour === undefined) {
      colour = readColour(text);
      cache.set(text, colour);
    }
    return colour;
  }

  function readColour(text) {
    if (text === "transparent") return { r: 0, g: 0, b: 0, a: 0 };
    const m = /^rgba?\(\s*([\d.]+)[,\s]\s*([\d.]+)[,\s]\s*([\d.]+)\s*(?:[,/]\s*([\d.]+)(%?)\s*)?\)$/.exec(text || "");
    if (!m) return null;
    const a = m[4] === undefined ? 1 : Number(m[4]) / (m[5] ? 100 : 1);
    return { r: Number(m[1]), g: Number(m[2]), b: Number(m[3]), a };
  }

  // The opaque colour painted behind `el`'s content: its own background colour, else the nearest flat-tree
  // ancestor's, else the white canvas of a top-level page in the normal colour scheme; null when that cannot be
  // told (a translucent colour on the way, or a box positioned absolutely, fixed or sticky, which may sit over
  // anything). Background images are looked for only once a colour matches (paintedBetween): most text does not
  // match, and each style read costs. Iterative and memoised per element per call.
  function backdrop(el) {
    const cache = run.backdrops || (run.backdrops = new Map());
    const chain = [];
    let found;
    for (let a = el; ; a = flatParent(a)) {
      if (!a) {
        found = canvasColour(el);
        break;
      }
      const known = cache.get(a);
      if (known !== undefined) {
        found = known;
        break;
      }
      chain.push(a);
      const own = ownBackdrop(a);
      if (own !== undefined) {
        found = own;
        break;
      }
    }
    for (const a of chain) cache.set(a, found);
    return found;
  }

  // An element's own say in its backdrop: a colour or null (decided), undefined (see through to the parent).
  function ownBackdrop(el) {
    const colour = parseColour(style(el).backgroundColor);
    if (!colour || (colour.a > 0 && colour.a < 1)) return null;
    if (colour.a === 1) return { ...colour, painter: el };
    const position = props(el).position;
    if (position === "absolute" || position === "fixed" || position === "sticky") return null;
    return undefined;
  }

  // Whether something else may be painted between the colour `backdrop` found (on `painter`, or the canvas when
  // null) and the text of `el`, so that the match proves nothing. Asked only once the colours match, which is
  // rare, so it may cost more: a background image or a ::before/::after box with a background on `el` or an
  // ancestor up to the painter; or, anywhere under the painter, a box that overlaps `el` and is not one of its
  // ancestors — an image, a video, a canvas, an SVG, or an element with a background — such as the picture of a
  // hero banner, laid out behind its white heading by absolute positioning.
  function paintedBetween(el, painter) {
    for (let a = el; a; a = flatParent(a)) {
      const s = style(a);
      if (s.backgroundImage !== "none" || pseudoPaints(a, "::before") || pseudoPaints(a, "::after")) return true;
      if (a === painter) break;
    }
    const r = el.getBoundingClientRect();
    for (const [other, box] of paintedBoxes(painter || el.ownerDocument.documentElement)) {
      if (box.right > r.left && box.left < r.right && box.bottom > r.top && box.top < r.bottom &&
        !other.contains(el)) return true;
    }
    return false;
  }

  function pseudoPaints(el, which) {
    const s = view(el).getComputedStyle(el, which);
    const content = s.content;
    if (!content || content === "none" || content === "normal") return false;
    const colour = parseColour(s.backgroundColor);
    return s.backgroundImage !== "none" || !colour || colour.a > 0;
  }

  // The boxes under `root` that paint something of their own, with their border boxes; once per root per call.
  function paintedBoxes(root) {
    const cache = run.painted || (run.painted = new Map());
    let list = cache.get(root);
    if (list === undefined) {
      list = [];
      for (const d of root.querySelectorAll("*")) {
        const tag = d.localName;
        let paints = tag === "img" || tag === "video" || tag === "canvas" || tag === "svg" || tag === "iframe" ||
          tag === "object" || tag === "embed";
        if (!paints) {
          const s = style(d);
          const colour = parseColour(s.backgroundColor);
          paints = s.backgroundImage !== "none" || !colour || colour.a > 0;
        }
        if (!paints) continue;
        const box = d.getBoundingClientRect();
        if (box.width > 0 && box.height > 0) list.push([d, box]);
      }
      cache.set(root, list);
    }
    return list;
  }

  function canvasColour(el) {
    const win = view(el);
    const root = win.document.documentElement;
    if (win !== window || !root || style(root).colorScheme !== "normal") return null;
    return { r: 255, g: 255, b: 255, a: 1, painter: null };
  }

  // Inline text split across boxes that touch is read as one word, as it renders ("6gHF" drawn as four
  // inline-block spans). Whether two pieces touch is decided by layout alone: the last character before the seam
  // and the first after it sit on one line with less than 0.15em between them (a space is about 0.25em). Callers
  // only ask when no whitespace lies between the two pieces in the DOM.
  function glyphsTouch(before, after) {
    const a = edgeChar(before, true);
    const b = edgeChar(after, false);
    const doc = before.ownerDocument;
    if (!a || !b || after.ownerDocument !== doc) return false;
    // One range from the one character to the other, one layout query: its first and last boxes are the two
    // characters' (anything drawn between them, an image, only adds boxes in the middle).
    if (!run.charRange || run.charRange.startContainer.ownerDocument !== doc) run.charRange = doc.createRange();
    const range = run.charRange;
    range.setStart(before, a[0]);
    range.setEnd(after, b[1]);
    let first = null;
    let last = null;
    for (const r of range.getClientRects()) {
      if (r.width <= 0 && r.height <= 0) continue;
      if (!first) first = r;
      last = r;
    }
    if (!first || first === last) return false;
    const overlap = Math.min(first.bottom, last.bottom) - Math.max(first.top, last.top);
    if (overlap <= 0.5 * Math.min(first.height, last.height)) return false;
    const gap = Math.max(last.left - first.right, first.left - last.right);
    const parent = after.parentElement;
    const em = parent ? parseFloat(style(parent).fontSize) || 16 : 16;
    return gap <= Math.max(1, 0.15 * em);
  }

  // The offsets [start, end) of a text node's last (or first) non-whitespace character; null when it has none.
  function edgeChar(textNode, last) {
    const data = textNode.data;
    let i = last ? data.length - 1 : 0;
    while (i >= 0 && i < data.length && /\s/.test(data[i])) i += last ? -1 : 1;
    if (i < 0 || i >= data.length) return null;
    // A surrogate pair is one character.
    let start = i;
    let end = i + 1;
    if (last && i > 0 && /[\uDC00-\uDFFF]/.test(data[i]) && /[\uD800-\uDBFF]/.test(data[i - 1])) start--;
    if (!last && /[\uD800-\uDBFF]/.test(data[i]) && end < data.length) end++;
    return [start, end];
  }

  // read_page's half of the inline joining: among a parent's child nodes `out` (built from its flat-tree children
  // `nodes`), runs of text and text-only wrapper elements (nodes read_page would not print itself: generic, no
  // name, no states) whose glyphs touch across every seam, with no whitespace at the seams, become one text node.
  // "<span style=display:inline-block>6</span><span …>g</span>" reads as text "6gHF", not "6 g H F". Nodes that
  // print, and anything the DOM and `out` do not line up on (slots), are left as they are.
  function joinTouchingText(nodes, out) {
    if (out.length < 2) return out;
    const items = [];
    let j = 0;
    let texts = [];
    let aligned = true;
    const flushText = () => {
      if (!texts.length) return;
      const raw = texts.map((t) => t.data).join("");
      const node = out[j];
      if (node && node.role === "text" && node.key === null && node.name && node.name === collapse(raw)) {
        items.push({ node, joinable: true, text: node.name, inView: node.inViewport, texts, raw });
        j++;
      } else if (raw) {
        items.push(null);  // whitespace, or text that is not shown: a seam that does not join
      }
      texts = [];
    };
    for (const node of nodes) {
      if (node.nodeType === 3) {
        texts.push(node);
        continue;
      }
      if (node.nodeType !== 1) continue;
      flushText();
      if (node.localName === "slot" || node.shadowRoot) {
        aligned = false;
        break;
      }
      const key = state.keyOf.get(node);
      const produced = key !== undefined && out[j] && out[j].key === key ? out[j] : null;
      if (!produced) continue;  // nothing rendered (display:none, a skipped tag): no seam
      j++;
      items.push(wrapperItem(produced, node));
    }
    flushText();
    if (!aligned || j !== out.length) return out;
    const result = [];
    let group = [];
    const close = () => {
      if (group.length > 1) {
        const node = makeNode("text", group.map((it) => it.text).join(""), null);
        node.visible = true;
        node.inViewport = group.some((it) => it.inView);
        result.push(node);
      } else if (group.length) {
        result.push(group[0].node);
      }
      group = [];
    };
    for (const it of items) {
      const before = group.length ? group[group.length - 1] : null;
      const left = it && it.joinable && before ? seamOf(before, true) : null;
      const right = left ? seamOf(it, false) : null;
      if (left && right && glyphsTouch(left, right)) {
        group.push(it);
        continue;
      }
      close();
      if (it && it.joinable) group.push(it);
      else if (it) result.push(it.node);
    }
    close();
    return result;
  }

  // An element child as a joining candidate: joinable when read_page would print only its one text line. Its
  // text nodes and whitespace at its ends are looked at only when a neighbour could join it (seamOf).
  function wrapperItem(node, el) {
    const only = node.children.length === 1 ? node.children[0] : null;
    const joinable = WRAPPER_ROLES.has(node.role) && !node.name && !node.interactive && node.value === null &&
      !node.description && !node.placeholder && node.level === null && !node.states.length && node.visible &&
      !!only && only.role === "text" && only.visible && !!only.name;
    if (!joinable) return { node, joinable: false };
    return { node, joinable: true, text: only.name, inView: only.inViewport, el };
  }

  // The text node at an item's start (or end) that a seam is measured at, or null when whitespace lies there.
  function seamOf(item, atEnd) {
    if (item.el) {
      if (!item.texts) {
        const walker = item.el.ownerDocument.createTreeWalker(item.el, 4);
        item.texts = [];
        for (let t = walker.nextNode(); t; t = walker.nextNode()) item.texts.push(t);
        item.raw = item.texts.map((t) => t.data).join("");
      }
    }
    if (atEnd ? /\s$/.test(item.raw) : /^\s/.test(item.raw)) return null;
    return atEnd ? lastInk(item.texts) : firstInk(item.texts);
  }

  function firstInk(texts) {
    for (const t of texts) if (/\S/.test(t.data)) return t;
    return null;
  }

  function lastInk(texts) {
    for (let i = texts.length - 1; i >= 0; i--) if (/\S/.test(texts[i].data)) return texts[i];
    return null;
  }

  // ---------------------------------------------------------------------------------------------------------
  // snapshot

  function round(n) {
    return Math.round(n * 10) / 10;
  }

  function makeNode(role, name, key) {
    return { role, name, key, value: null, description: "", placeholder: "", states: [], level: null, bounds: null,
      visible: false, inViewport: false, interactive: false, children: [] };
  }

  // Each node field, left out at its default (name "", key null, value null, description "", placeholder "",
  // inputType "", action "", states [], level null, bounds null, visible true, inViewport true, interactive false,
  // children []): well under half the bytes, which matters because moving a snapshot through BiDi costs more than computing
  // it. The compact encoding the driver reads uses one-letter keys and writes the flags as 1 (h: hidden, o: outside
  // the viewport, i: interactive); the long one keeps the node's own keys (for tests and the benchmark's baseline).
  const LONG_KEYS = { role: "role", name: "name", key: "key", value: "value", description: "description",
    placeholder: "placeholder", inputType: "inputType", action: "action", states: "states", level: "level",
    bounds: "bounds", hidden: "visible", outside: "inViewport", interactive: "interactive", children: "children" };
  const SHORT_KEYS = { role: "r", name: "n", key: "k", value: "v", description: "d", placeholder: "p",
    inputType: "t", action: "a", states: "s", level: "l", bounds: "b", hidden: "h", outside: "o",
    interactive: "i", children: "c" };

  // Straight-line on purpose: it runs once per node of a snapshot (20,000 on a big page), where a loop over a
  // field table measured ten times slower.
  function encodeNode(node, short) {
    const keys = short ? SHORT_KEYS : LONG_KEYS;
    const out = { [keys.role]: node.role };
    if (node.name) out[keys.name] = node.name;
    if (node.key !== null) out[keys.key] = node.key;
    if (node.value !== null) out[keys.value] = node.value;
    if (node.description) out[keys.description] = node.description;
    if (node.placeholder) out[keys.placeholder] = node.placeholder;
    if (node.inputType) out[keys.inputType] = node.inputType;
    if (node.action) out[keys.action] = node.action;
    if (node.states.length) out[keys.states] = node.states;
    if (node.level !== null) out[keys.level] = node.level;
    if (node.bounds !== null) out[keys.bounds] = node.bounds;
    if (!node.visible) out[keys.hidden] = short ? 1 : false;
    if (!node.inViewport) out[keys.outside] = short ? 1 : false;
    if (node.interactive) out[keys.interactive] = short ? 1 : true;
    if (node.children.length) out[keys.children] = node.children.map((child) => encodeNode(child, short));
    return out;
  }

  // Pruning for a read that shows only part of the tree (filter "visible"/"interactive", a depth, a root). It
  // must never change what read_page prints (browser_toolset.executor.tree_text): a node is dropped only when neither it
  // nor anything under it could print, and a node that cannot print itself is replaced by its children, which
  // keeps every printed node's level and nearest printed ancestor. A hidden node takes its subtree with it.
  const WRAPPER_ROLES = new Set(["generic", "none", "presentation"]);
  const CONTEXT_ROLES = new Set(["form", "dialog", "alertdialog", "region", "group", "search", "main", "article"]);

  function includedBy(node, filter) {
    if (filter === "visible") return node.inViewport;
    if (filter === "interactive") return node.inViewport && node.interactive && node.role !== "text";
    return true;
  }

  // Loosely a wrapper (states ignored): at least every node tree_text collapses, so a level counted with it is
  // never above the printed one.
  function looseWrapper(node) {
    return WRAPPER_ROLES.has(node.role) && !node.name && !node.interactive && node.value === null &&
      !node.description && !node.placeholder && node.level === null;
  }

  function prune(nodes, filter, depth, budget) {
    // Iterative: pages nest deeper than the JS stack. Each frame turns a node list into the pruned list `out`.
    const result = [];
    const stack = [{ nodes, i: 0, level: 1, out: result }];
    while (stack.length) {
      const frame = stack[stack.length - 1];
      if (frame.i >= frame.nodes.length) {
        stack.pop();
        if (frame.finish) frame.finish();
        continue;
      }
      const node = frame.nodes[frame.i++];
      if (!node.visible) continue;
      if (budget.left <= 0) {
        budget.truncated = true;
        continue;
      }
      const included = includedBy(node, filter);
      if (node.role === "text") {
        if (node.name && included && (!depth || frame.level <= depth)) {
          budget.left--;
          frame.out.push(node);
        }
        continue;
      }
      const printsLoose = included && !looseWrapper(node);
      if (printsLoose && depth && frame.level > depth) continue;
      const childLevel = printsLoose ? frame.level + 1 : frame.level;
      const mayPrint = included && !(looseWrapper(node) && !node.states.length);
      // Named forms, dialogs, regions... stay as containers: the executor names them around a ref (CONTEXT_ROLES).
      if (!mayPrint && !(node.name && CONTEXT_ROLES.has(node.role))) {
        // Cannot print: its children take its place at its level.
        if (node.children.length) stack.push({ nodes: node.children, i: 0, level: childLevel, out: frame.out });
        continue;
      }
      budget.left--;
      const kept = { ...node, children: [] };
      frame.out.push(kept);
      if (node.children.length) stack.push({ nodes: node.children, i: 0, level: childLevel, out: kept.children });
    }
    return result;
  }

  function findNode(root, key) {
    const stack = [root];
    while (stack.length) {
      const node = stack.pop();
      if (node.key === key) return node;
      for (const child of node.children) stack.push(child);
    }
    return null;
  }

  // What the page looks like to a snapshot, cheaply: a new stamp whenever the DOM, scrolling, focus, input or
  // the viewport may have changed what a walk would return; null when that cannot be told (shadow roots and
  // frames are not observed, running animations change boxes without events).
  function changeStamp() {
    if (!state.watch) {
      const watch = { changes: 0 };
      const bump = () => {
        watch.changes++;
      };
      watch.observer = new MutationObserver(bump);
      watch.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      for (const type of ["scroll", "resize", "focusin", "focusout", "input", "change", "click", "mouseover",
        "mouseout", "pointerdown", "pointerup", "keydown", "keyup", "load", "error", "toggle", "transitionend",
        "animationstart", "animationend", "fullscreenchange", "pageshow", "visibilitychange"]) {
        document.addEventListener(type, bump, { capture: true, passive: true });
        window.addEventListener(type, bump, { capture: true, passive: true });
      }
      state.watch = watch;
    }
    if (state.unobservable) return null;
    if (document.getAnimations && document.getAnimations().length) return null;
    if (document.readyState !== "complete") return null;
    return [state.id, state.watch.changes, window.scrollX, window.scrollY, window.innerWidth, window.innerHeight,
      document.activeElement ? keyFor(document.activeElement) : ""].join(":");
  }

  function snapshot(options) {
    const stamp = options.since !== undefined ? changeStamp() : null;
    if (stamp !== null && options.since === stamp) return { document: state.id, unchanged: true };
    const filter = options.filter || "all";
    const depth = options.depth || 0;
    run.walkBudget = options.chars > 0 ? { left: options.chars, filter, depth: depth || Infinity, open: [] } : null;
    run.viewportOnly = !options.root && (filter === "visible" || filter === "interactive");
    const full = walkTree();
    let root = full.root;
    let truncated = !!(run.walkBudget && run.walkBudget.stopped);
    const limit = options.budget || 0;
    if (options.root || filter !== "all" || depth || limit) {
      let top = root.children;
      if (options.root) {
        const scoped = findNode(root, options.root);
        top = scoped ? [scoped] : [];
      }
      const budget = { left: limit || Infinity, truncated: false };
      // The scope's own node is kept even when it cannot print: the executor finds it by key.
      let children;
      if (options.root && top.length) {
        const scoped = { ...top[0], children: top[0].visible ? prune(top[0].children, filter, depth, budget) : [] };
        children = [scoped];
      } else {
        children = prune(top, filter, depth, budget);
      }
      root = { ...root, children };
      truncated = budget.truncated;
    }
    const out = { document: state.id, viewport: full.viewport, root: options.compact || options.sparse ?
      encodeNode(root, Boolean(options.compact)) : root };
    if (truncated) out.truncated = true;
    if (stamp !== null) out.stamp = stamp;
    // How many frames the document has (any origin): the driver reads those it did not know of (see frame_tree).
    if (window.frames.length) out.frames = window.frames.length;
    return out;
  }

  function walkTree() {
    // A frame's document read on its own shows no focused element while the focus is in another document.
    run.focused = window.top !== window && !document.hasFocus() ? null : deepActiveElement();
    const vp = viewportSize(window);
    const docEl = document.documentElement;
    const root = makeNode("document", collapse(document.title), docEl ? keyFor(docEl) : null);
    root.bounds = [0, 0, vp.width, vp.height];
    root.visible = true;
    root.inViewport = true;
    const viewClip = [0, 0, vp.width, vp.height];
    run.viewClip = viewClip;
    const scope = topScope(0, 0, { hard: UNCLIPPED, view: viewClip });
    const start = document.body || docEl;
    noteOwned(document);
    if (start) {
      const info = enter(start, scope);
      root.children = walkChildren(flatChildren(start), info.child, info);
    }
    moveOwned(root);
    pruneKeys();
    return { viewport: vp, root };
  }

  // aria-owns: the nodes of owned elements are taken out where the walk meets them (their visibility is decided
  // there, by their own ancestors) and put under their owner's node after its own children. Pages without
  // aria-owns pay one query per document.
  function noteOwned(doc) {
    const owned = ownedIn(doc);
    if (!owned.size) return;
    if (!run.moving) {
      run.moving = { owned: new Map(), owners: new Set(), nodes: new Map(), throughChildren: new Map() };
    }
    for (const [target, owner] of owned) {
      run.moving.owned.set(target, owner);
      run.moving.owners.add(owner);
    }
  }

  function moveOwned(root) {
    const moving = run.moving;
    if (!moving) return;
    let moved = false;
    for (const [target, owner] of moving.owned) {
      const node = moving.nodes.get(target);
      const ownerNode = moving.nodes.get(owner);
      // An owner that is not in the tree (hidden, not rendered) takes what it owns with it.
      if (!node || !ownerNode || ownerNode === node) continue;
      if (PRESENTATIONAL_CHILDREN.has(ownerNode.role) && !hasInteractive(node)) continue;
      ownerNode.children.push(node);
      moved = true;
    }
    if (moved && moving.throughChildren.size) showThroughChildren(root, moving.throughChildren);
  }

  // An element without area is visible through visible children (walkElement): once owned elements have moved,
  // such elements (an empty list owning its items) are judged again, deepest first.
  function showThroughChildren(root, candidates) {
    const order = [];
    const stack = [root];
    while (stack.length) {
      const node = stack.pop();
      order.push(node);
      for (const child of node.children) stack.push(child);
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const node = order[i];
      const el = candidates.get(node);
      if (node.visible || !el || !node.children.some((child) => child.visible)) continue;
      node.visible = true;
      node.inViewport = node.children.some((child) => child.inViewport);
      try {
        node.name = accessibleName(el);
      } catch (e) {
        node.name = collapse(el.getAttribute("aria-label"));
      }
    }
  }

  // The nodes for `nodes` (a parent's flat-tree children): one per element, one per run of adjacent text nodes.
  function walkChildren(nodes, scope, parentInfo) {
    const out = [];
    let texts = [];
    const flush = () => {
      if (!texts.length) return;
      const text = collapse(texts.map((t) => t.data).join(""));
      if (text && !scope.hidden) {
        const seen = textRunVisible(texts, parentInfo, scope);
        if (seen && seen.visible) {
          const node = makeNode("text", text, null);
          node.visible = true;
          node.inViewport = seen.inView;
          out.push(node);
          if (run.walkBudget) spend(node);
        }
      }
      texts = [];
    };
    for (const node of nodes) {
      if (run.walkBudget && run.walkBudget.stopped) break;
      if (node.nodeType === 3) {
        texts.push(node);
        continue;
      }
      if (node.nodeType !== 1) continue;
      flush();
      walkElement(node, scope, out);
    }
    flush();
    return joinTouchingText(nodes, out);
  }

  function walkElement(el, scope, out) {
    const tag = el.localName;
    if (isHTML(el) && SKIPPED_TAGS.has(tag)) return;
    if (el.namespaceURI === SVG_NS && (tag === "title" || tag === "desc")) return;
    if (scope.hiddenContentOf) {
      scope = { ...scope, hidden: !isDetailsSummary(scope.hiddenContentOf, el), hiddenContentOf: null };
    }
    // An image map's areas are walked with their image (imageMapNodes), not where the <map> stands.
    if (tag === "area" && isHTML(el)) return;
    // A slot is only where its assigned nodes render: they join the host's children.
    if (tag === "slot" && isHTML(el)) {
      const info = enter(el, scope);
      for (const node of walkChildren(flatChildren(el), info.child, info)) out.push(node);
      return;
    }
    if (scope.dropdown) {
      out.push(dropdownNode(el, scope));
      return;
    }

    const info = enter(el, scope);
    const role = roleOf(el);
    const node = makeNode(role, "", keyFor(el));
    if (info.box) node.bounds = [round(info.box[0]), round(info.box[1]), round(info.box[2]), round(info.box[3])];

    let children = [];
    const budget = run.walkBudget;
    if (budget) {
      // Whether a visible descendant makes this element visible too (see `visible` below), and whether its
      // children may be dropped as presentational: what `spend` needs to know about each open ancestor.
      budget.open.push(info.excludedHere || !info.selfVisible ||
        !(info.areaVisible || !(info.box && hasArea(info.box))) || PRESENTATIONAL_CHILDREN.has(role));
    }
    const stand = concealable(el) && !info.excludedHere ? standIn(el, info, scope) : null;
    const frameDoc = (tag === "iframe" || tag === "frame") && isHTML(el) ? safeContentDocument(el) : null;
    if (frameDoc) {
      children = walkFrame(el, frameDoc, info);
    } else if (role === "combobox" && isHTML(el, "select") && !info.excludedHere) {
      // The options of a drop-down select have no boxes of their own; they are as visible as the select.
      const shown = stand ? { visible: true, inView: stand.inView } :
        { visible: info.selfVisible && info.areaVisible, inView: info.inView };
      children = walkChildren(el.children, { ...info.child, dropdown: shown }, info);
    } else if (tag === "img" && isHTML(el) && el.hasAttribute("usemap")) {
      children = imageMapNodes(el, info, scope);
    } else if (!isLeafControl(el)) {
      children = walkChildren(flatChildren(el), info.child, info);
    }
    node.children = children;

    let childVisible = false;
    let childInView = false;
    for (const child of children) {
      if (child.visible) childVisible = true;
      if (child.inViewport) childInView = true;
    }
    // An element is visible through its own painted box, or through visible children when it has no area.
    const visible = !info.excludedHere && info.selfVisible &&
      (info.areaVisible || (childVisible && !(info.box && hasArea(info.box))));
    node.visible = visible;
    node.inViewport = visible && (info.inView || (childInView && !info.areaVisible));
    if (stand) {
      // A control hidden from sight but operated through its stand-in is where the stand-in is.
      node.visible = true;
      node.inViewport = stand.inView;
      node.bounds = stand.bounds.map(round);
    }
    if (!visible && childVisible && hiddenByVisibilityOnly(info)) {
      // visibility:hidden hides the element's own box and text, not descendants that are visibility:visible
      // again: the element stays out (a bare wrapper in its place, which read_page folds away), they stay in.
      node.role = "none";
      node.visible = true;
      node.inViewport = childInView;
    } else {
      fillProperties(node, el, role, info, scope);
      // ARIA makes the children of buttons, tabs, checkboxes, images... presentational: the name says it all.
      // Keep them only when something inside can be acted on (a close button in a tab), which ARIA forbids but
      // pages do.
      if (PRESENTATIONAL_CHILDREN.has(role) && !children.some(hasInteractive)) node.children = [];
    }
    const moving = run.moving;
    if (moving && !node.visible && !info.excludedHere && info.selfVisible && !(info.box && hasArea(info.box))) {
      moving.throughChildren.set(node, el);
    }
    if (moving && (moving.owned.has(el) || moving.owners.has(el))) {
      moving.nodes.set(el, node);
      if (moving.owned.has(el)) {
        if (budget) budget.open.pop();
        return;  // moveOwned puts it under its owner
      }
    }
    out.push(node);
    if (budget) {
      budget.open.pop();
      spend(node);
    }
  }

  // Whether all that hides an element is its own visibility (not display, aria-hidden, inert, opacity or a clip).
  function hiddenByVisibilityOnly(info) {
    const child = info.child;
    return !info.excludedHere && info.p.visibility !== "visible" && !child.ariaHidden && !child.inert &&
      !child.transparent && child.flow.hard !== EMPTY && !child.hidden && !child.hiddenContentOf;
  }

  // A read that stops early (`chars`): once the nodes certain to be printed would fill about `chars` characters,
  // the walk stops and the tree is marked truncated. Only a finished node is counted, and only when it will
  // surely print: visible, passing the filter, not a wrapper the executor folds away, within `depth` even if every
  // open ancestor prints, and under no ancestor that could still hide it or drop it as presentational. The
  // characters are an estimate of its line (the executor formats lines, and checks that what it printed reached
  // its cap before it trusts a truncated tree). The walk stops right after a counted node, so every open ancestor
  // has a visible descendant and its own visibility comes out as in a whole walk.
  function spend(node) {
    const budget = run.walkBudget;
    if (budget.stopped || !node.visible || budget.open.length + 1 > budget.depth) return;
    for (const blocked of budget.open) if (blocked) return;
    if (!includedBy(node, budget.filter)) return;
    let size;
    if (node.role === "text") {
      if (!node.name) return;
      size = 8 + Math.min(node.name.length, 300);
    } else {
      if (looseWrapper(node) && !node.states.length) return;
      size = node.role.length + 1 + (node.name ? 3 + Math.min(node.name.length, 150) : 0) + (node.key ? 9 : 0);
    }
    budget.left -= size + 2 * budget.open.length;
    if (budget.left <= 0) budget.stopped = true;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Controls hidden from sight: pages draw checkboxes, radios and selects of their own and hide the native one
  // (opacity 0, no size, a clip, parked off the page, appearance: none) behind a styled label or look-alike. A
  // person still operates it, through that label or look-alike: its stand-in, where the control is read to be
  // and where a click on it goes.

  function concealable(el) {
    if (!isHTML(el)) return false;
    const tag = el.localName;
    return tag === "select" || (tag === "input" && (el.type === "checkbox" || el.type === "radio"));
  }

  // {bounds, inView} of the stand-in of a control the walk found hidden from sight only, or null (not hidden, hidden
  // for real, or nothing stands in for it).
  function standIn(el, info, scope) {
    // Not rendered, visibility, aria-hidden and inert hide it from everyone; the rest only from sight.
    if (info.p.visibility !== "visible" || info.child.ariaHidden || info.child.inert) return null;
    const box = info.box;
    if (info.selfVisible && info.areaVisible && !offPage(box, scope, el)) return null;
    // Where only opacity hides it (a transparent select laid over its drawing), a click on its own box reaches it.
    if (info.areaVisible && info.child.flow.hard !== EMPTY && !offPage(box, scope, el)) {
      return { bounds: box, inView: info.inView };
    }
    for (const candidate of standInCandidates(el)) {
      const shown = shownBox(candidate, scope);
      if (shown) return shown;
    }
    return null;
  }

  // What a person would click instead: a label of a checkbox or radio (clicking it toggles the control); for a
  // select, the element drawn after it (a custom drop-down's face), then a label.
  function standInCandidates(el) {
    const labels = labelsOf(el) || [];
    if (!isHTML(el, "select")) return labels;
    const next = el.nextElementSibling;
    return next && !concealable(next) ? [next, ...labels] : labels;
  }

  // {bounds, inView} of an element a person can see, or null.
  function shownBox(el, scope) {
    if (excluded(el)) return null;
    const p = props(el);
    if (p.visibility !== "visible" || clipsAway(p)) return null;
    if (typeof el.checkVisibility === "function" && !el.checkVisibility({ opacityProperty: true,
      visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true })) return null;
    const r = el.getBoundingClientRect();
    const box = [r.left + scope.dx, r.top + scope.dy, r.width, r.height];
    if (!hasArea(box) || offPage(box, scope, el)) return null;
    return { bounds: box, inView: overlaps(box, run.viewClip || UNCLIPPED) };
  }

  // The element a click on a control hidden from sight goes to (its stand-in, or the control itself where only
  // opacity hides it), or null when the control is in sight, hidden for real, or has no stand-in. Outside a walk:
  // for center, elementAt and setValue.
  function standInElement(el) {
    if (!concealable(el) || excluded(el) || el.closest("[inert]")) return null;
    const p = props(el);
    if (p.visibility !== "visible") return null;
    const r = el.getBoundingClientRect();
    const own = [r.left, r.top, r.width, r.height];
    const none = { dx: 0, dy: 0 };
    let transparent = false;
    let clipped = false;
    for (let a = el; a; a = flatParent(a)) {
      const ap = props(a);
      if (ap.opacity === "0") transparent = true;
      if (clipsAway(ap)) clipped = true;
    }
    const rect = visibleRect(el);
    const inSight = rect && rect.vis !== EMPTY;
    if (!transparent && !clipped && hasArea(own) && !offPage(own, none, el)) return null;
    if (transparent && !clipped && inSight && hasArea(own) && !offPage(own, none, el)) return el;
    for (const candidate of standInCandidates(el)) if (shownBox(candidate, none)) return candidate;
    return null;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Image maps: an <img usemap> holds the links of its <map>, each where its shape lies on the image.

  function imageMap(img) {
    const name = (img.getAttribute("usemap") || "").replace(/^#/, "");
    if (!name) return null;
    for (const map of img.ownerDocument.getElementsByTagName("map")) {
      if (map.name === name || map.id === name) return map;
    }
    return null;
  }

  function imageOfArea(area) {
    const cache = run.areaImages || (run.areaImages = new Map());
    let found = cache.get(area);
    if (found === undefined) {
      found = null;
      const map = area.closest("map");
      if (map) {
        for (const img of area.ownerDocument.querySelectorAll("img[usemap]")) {
          if (imageMap(img) === map) {
            found = img;
            break;
          }
        }
      }
      cache.set(area, found);
    }
    return found;
  }

  // An area's box [x, y, width, height] relative to its image's content box: the bounds of its shape.
  function areaShape(area, img) {
    const nums = (area.getAttribute("coords") || "").split(/[\s,]+/).filter(Boolean).map(Number);
    const shape = (area.getAttribute("shape") || "rect").toLowerCase();
    if (shape === "default") return [0, 0, img.clientWidth, img.clientHeight];
    if (nums.some((n) => !Number.isFinite(n))) return EMPTY;
    if ((shape === "circle" || shape === "circ") && nums.length >= 3) {
      return [nums[0] - nums[2], nums[1] - nums[2], 2 * nums[2], 2 * nums[2]];
    }
    if ((shape === "poly" || shape === "polygon") && nums.length >= 6) {
      const xs = nums.filter((_, i) => i % 2 === 0);
      const ys = nums.filter((_, i) => i % 2 === 1);
      const x0 = Math.min(...xs);
      const y0 = Math.min(...ys);
      return [x0, y0, Math.max(...xs) - x0, Math.max(...ys) - y0];
    }
    if (nums.length >= 4) {
      const [x0, x1] = [Math.min(nums[0], nums[2]), Math.max(nums[0], nums[2])];
      const [y0, y1] = [Math.min(nums[1], nums[3]), Math.max(nums[1], nums[3])];
      return [x0, y0, x1 - x0, y1 - y0];
    }
    return EMPTY;
  }

  function imageMapNodes(img, info, scope) {
    const map = imageMap(img);
    if (!map || !info.box) return [];
    const [ox, oy] = frameOrigin(img, info.box);
    const clips = info.child.flow;
    const out = [];
    for (const area of map.querySelectorAll("area")) {
      const role = roleOf(area);
      const node = makeNode(role, "", keyFor(area));
      const shape = areaShape(area, img);
      const box = [ox + shape[0], oy + shape[1], shape[2], shape[3]];
      node.bounds = box.map(round);
      node.visible = !info.excludedHere && info.selfVisible && hasArea(box) && overlaps(box, clips.hard);
      node.inViewport = node.visible && overlaps(box, intersect(clips.hard, clips.view));
      fillProperties(node, area, role, { p: null, excludedHere: !node.visible }, scope);
      out.push(node);
    }
    return out;
  }

  const PRESENTATIONAL_CHILDREN = new Set(["button", "checkbox", "img", "meter", "progressbar", "scrollbar",
    "separator", "slider", "switch", "tab", "menuitemcheckbox", "menuitemradio", "radio", "option",
    "doc-pagebreak"]);

  function hasInteractive(node) {
    return node.interactive || node.children.some(hasInteractive);
  }

  function isLeafControl(el) {
    const tag = el.localName;
    if (el.namespaceURI === SVG_NS) {
      // A drawing is one image; only links inside (an image map in SVG) are worth walking into.
      return tag === "svg" && !el.querySelector("a");
    }
    if (!isHTML(el)) return false;
    return tag === "input" || tag === "textarea" || tag === "img" || tag === "video" || tag === "audio" ||
      tag === "canvas" || tag === "object" || tag === "embed" || tag === "iframe" || tag === "frame";
  }

  function dropdownNode(el, scope) {
    const role = roleOf(el);
    const node = makeNode(role, "", keyFor(el));
    node.visible = scope.dropdown.visible;
    node.inViewport = scope.dropdown.inView;
    run.excluded.set(el, !node.visible);
    if (role === "group") node.children = Array.from(el.children, (child) => dropdownNode(child, scope));
    fillProperties(node, el, role, { p: null, excludedHere: !node.visible }, scope);
    return node;
  }

  function walkFrame(frame, doc, info) {
    state.unobservable = true;
    const body = doc.body || doc.documentElement;
    if (!body || !info.box) return [];
    noteOwned(doc);
    const inner = frameScope(frame, doc, info);
    const bodyInfo = enter(body, inner);
    return walkChildren(flatChildren(body), bodyInfo.child, bodyInfo);
  }

  // The scope at the top of a same-origin frame's document: offset to the frame's content box, clipped to it, and
  // hidden along with the frame element.
  function frameScope(frame, doc, info) {
    const [ox, oy] = frameOrigin(frame, info.box);
    const win = doc.defaultView;
    const size = win ? viewportSize(win) : { width: 0, height: 0 };
    const content = [ox, oy, ox + size.width, oy + size.height];
    const outer = info.child.flow;
    const inner = topScope(ox, oy, { hard: intersect(outer.hard, content), view: intersect(outer.view, content) });
    inner.ariaHidden = info.child.ariaHidden;
    inner.inert = info.child.inert;
    inner.transparent = info.child.transparent;
    inner.hidden = info.excludedHere || !info.selfVisible;
    return inner;
  }

  // The type of an <input> whose value has a shape of its own (TYPED_INPUTS), or null. The browser's normalised
  // `type` is used, never the attribute: an unknown type is a plain text field.
  function inputTypeOf(el) {
    return isHTML(el, "input") && TYPED_INPUTS.has(el.type) ? el.type : null;
  }

  // What activating the element loads, for the confirmation gate (browser_toolset.values.ACTION_FORMS): "GET <url>"
  // for a link with an address, "SCRIPT" for a link that loads nothing (javascript:, a fragment of its own page),
  // "<METHOD> <url>" for a control that submits its form, "DIALOG" for one that submits a method=dialog form, and
  // "" for everything else. The form's own `action`, `method` and `elements` are read through the prototype: a
  // control named "action" would shadow them on the form.
  const FORM_GETTERS = {};
  for (const field of ["action", "method", "elements"]) {
    FORM_GETTERS[field] = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, field).get;
  }

  function submitsForm(el) {
    if (isHTML(el, "button")) return el.type === "submit" && !!el.form;
    return isHTML(el, "input") && (el.type === "submit" || el.type === "image") && !!el.form;
  }

  function actionOf(el) {
    if ((isHTML(el, "a") || isHTML(el, "area")) && el.hasAttribute("href")) {
      const href = el.href;
      if (/^javascript:/i.test(href)) return "SCRIPT";
      const page = el.ownerDocument.URL.split("#")[0];
      if (href.includes("#") && href.split("#")[0] === page) return "SCRIPT";
      return "GET " + href;
    }
    return submitsForm(el) ? submissionOf(el.form, el) : "";
  }

  // What submitting `form` loads, by `control` (its own formmethod/formaction first) or by the form itself (null).
  function submissionOf(form, control) {
    const method = (control && control.getAttribute("formmethod") ? control.formMethod :
      FORM_GETTERS.method.call(form)) || "get";
    if (method.toLowerCase() === "dialog") return "DIALOG";
    const url = control && control.getAttribute("formaction") ? control.formAction : FORM_GETTERS.action.call(form);
    return method.toUpperCase() + " " + url;
  }

  // The fields whose Enter submits their form (HTML's "fields that block implicit submission").
  const IMPLICIT_SUBMISSION = new Set(["text", "search", "url", "tel", "email", "password", "date", "month", "week",
    "time", "datetime-local", "number"]);

  // What a press of `key` ("Enter" or " ") at the focused element would activate, described as elementAt describes
  // a hit (with `action`), or null when it activates nothing (typing in a field, no focus). `moved`: keys pressed
  // before it in the same call move the focus (Tab), so the element is not known; within a form, the press is
  // taken to submit it. Enter in a single-line field submits its form through its default button (the first submit
  // button; with none, the form submits when that field is its only one, as "Submit", keyed as the field).
  function keyTarget(key, moved) {
    const el = deepActiveElement();
    if (!el) return null;
    const form = "form" in el && el.form instanceof el.ownerDocument.defaultView.HTMLFormElement ? el.form : null;
    const field = isHTML(el, "input") && IMPLICIT_SUBMISSION.has(el.type);
    const typing = field || isHTML(el, "textarea") || isHTML(el, "select") || el.isContentEditable ||
      (isHTML(el, "input") && !["button", "submit", "reset", "image", "checkbox", "radio", "file", "color"]
        .includes(el.type));
    let target = null;
    if (key === "Enter" && (field || moved) && form) {
      const fields = Array.from(FORM_GETTERS.elements.call(form));
      const button = fields.find(submitsForm);
      if (button) {
        if (button.disabled) return null;
        target = button;
      } else if (fields.filter((f) => isHTML(f, "input") && IMPLICIT_SUBMISSION.has(f.type)).length === 1) {
        return { key: keyFor(el), role: "button", name: "Submit", context: contextAround(el),
          action: submissionOf(form, null) };
      }
    } else if (!moved && !typing && (key === "Enter" || key === " ")) {
      target = el;
    }
    if (!target) return null;
    return { key: keyFor(target), role: roleOf(target), name: nameOrLabel(target), context: contextAround(target),
      action: actionOf(target) };
  }

  function fillProperties(node, el, role, info, scope) {
    node.states = statesOf(el, role, scope);
    node.level = levelOf(el, role);
    node.value = valueOf(el, role);
    const placeholder = el.getAttribute("placeholder") || el.getAttribute("aria-placeholder");
    node.placeholder = collapse(placeholder);
    const type = inputTypeOf(el);
    if (type) node.inputType = type;
    // Interactive is "focusable, clickable or editable", which a disabled control is not (whatever its role).
    node.interactive = !info.excludedHere && !node.states.includes("disabled") &&
      isInteractive(el, role, info.p, scope.pointer);
    // A read of the viewport only never prints a node outside it, nor its name (but for a named container, which
    // the executor names around the refs inside it): the name, the costliest part of a node, is left out there, as
    // is the action (a hidden element is never clicked either).
    if (node.visible && !(run.viewportOnly && !node.inViewport && !CONTEXT_ROLES.has(role))) {
      const action = actionOf(el);
      if (action) node.action = action;
      try {
        node.name = accessibleName(el);
        if (el.hasAttribute("aria-describedby") || el.hasAttribute("aria-description") || el.hasAttribute("title") ||
          el.hasAttribute("aria-errormessage")) {
          node.description = accessibleDescription(el, node.name);
        }
      } catch (e) {
        node.name = collapse(el.getAttribute("aria-label"));
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // element / center / scrollIntoView

  // The element's border box and the part of it left visible by its clipping ancestors (following its containing
  // blocks), by the frames it sits in and by the top-level viewport, all in top-level viewport coordinates.
  function visibleRect(el) {
    if (isHTML(el, "area")) return areaRect(el);
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0 && el.getClientRects().length === 0) return null;
    let full = [r.left, r.top, r.right, r.bottom];
    let vis = full;
    let doc = el.ownerDocument;
    let cur = el;
    for (;;) {
      let mode = style(cur).position;
      for (let a = flatParent(cur); a; a = flatParent(a)) {
        const s = style(a);
        const positioned = s.position !== "static" || s.transform !== "none";
        if (mode === "fixed" && s.transform === "none") continue;
        if (mode === "absolute" && !positioned) continue;
        if (clipsOverflow(s) && a !== doc.documentElement && a !== doc.body) {
          const ar = a.getBoundingClientRect();
          const x0 = ar.left + a.clientLeft;
          const y0 = ar.top + a.clientTop;
          vis = intersect(vis, [x0, y0, x0 + a.clientWidth, y0 + a.clientHeight]);
        }
        mode = s.position;
      }
      const win = doc.defaultView;
      const size = viewportSize(win);
      vis = intersect(vis, [0, 0, size.width, size.height]);
      const frame = win.frameElement;
      if (!frame) break;
      const fr = frame.getBoundingClientRect();
      const [ox, oy] = frameOrigin(frame, [fr.left, fr.top, fr.width, fr.height]);
      const shift = (b) => b === EMPTY ? EMPTY : [b[0] + ox, b[1] + oy, b[2] + ox, b[3] + oy];
      full = shift(full);
      vis = shift(vis);
      cur = frame;
      doc = frame.ownerDocument;
    }
    return { full, vis };
  }

  // What the driver needs to join a frame's own document to the tree: [its content window (BiDi serializes it with
  // its browsing context's id), whether the walk enters it (same origin), the left and top of its content box, the
  // visible part of that box as x0, y0, x1, y1 (four nulls when none), its sandbox attribute (null without one), its
  // address (null without one)], in the walk's viewport coordinates; null for a key that is no frame element.
  function frameFacts(keys) {
    return Array.from(keys, (key) => {
      const el = elementFor(key);
      if (!el || (el.localName !== "iframe" && el.localName !== "frame")) return null;
      const rect = visibleRect(el);
      let left = null;
      let top = null;
      let shown = [null, null, null, null];
      if (rect) {
        const s = style(el);
        [left, top] = frameOrigin(el, rect.full);
        const content = [left, top,
          left + el.clientWidth - (parseFloat(s.paddingLeft) || 0) - (parseFloat(s.paddingRight) || 0),
          top + el.clientHeight - (parseFloat(s.paddingTop) || 0) - (parseFloat(s.paddingBottom) || 0)];
        const vis = rect.vis === EMPTY ? EMPTY : intersect(rect.vis, content);
        if (vis !== EMPTY) shown = vis.map(round);
        left = round(left);
        top = round(top);
      }
      return [el.contentWindow, !!safeContentDocument(el), left, top, ...shown, el.getAttribute("sandbox"),
        el.src || null];
    });
  }

  // An area's box on its image, and the part of it the image's visible part leaves.
  function areaRect(area) {
    const img = imageOfArea(area);
    const base = img && visibleRect(img);
    if (!base) return null;
    const r = img.getBoundingClientRect();
    const [ox, oy] = frameOrigin(img, [base.full[0], base.full[1], r.width, r.height]);
    const shape = areaShape(area, img);
    const full = [ox + shape[0], oy + shape[1], ox + shape[0] + shape[2], oy + shape[1] + shape[3]];
    if (!(shape[2] > 0 && shape[3] > 0)) return null;
    return { full, vis: base.vis === EMPTY ? EMPTY : intersect(base.vis, full) };
  }

  // What scrolling an element into view moves: for an area, its image.
  function scrollTarget(el) {
    return isHTML(el, "area") ? imageOfArea(el) || el : el;
  }

  function center(el) {
    if (!el) return null;
    // A control hidden from sight is clicked where a person clicks it: on its stand-in.
    el = standInElement(el) || el;
    let rect = visibleRect(el);
    if (!rect) {
      return { error: "the element has no box: it is not rendered (display:none, or inside a hidden or collapsed " +
        "part of the page)" };
    }
    const [x0, y0, x1, y1] = rect.full;
    const whole = rect.vis !== EMPTY && Math.abs(rect.vis[0] - x0) < 0.5 && Math.abs(rect.vis[1] - y0) < 0.5 &&
      Math.abs(rect.vis[2] - x1) < 0.5 && Math.abs(rect.vis[3] - y1) < 0.5;
    if (!whole) {
      scrollTarget(el).scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      run.styles.clear();
      rect = visibleRect(el);
      if (!rect) return { error: "the element has no box after scrolling it into view" };
    }
    const vis = rect.vis;
    if (vis === EMPTY) {
      return { error: "the element is not visible even after scrolling it into view: it has no size or is " +
        "clipped by an ancestor" };
    }
    return { x: round((vis[0] + vis[2]) / 2), y: round((vis[1] + vis[3]) / 2) };
  }

  // Where the element will be when the click lands. A page still loading moves its elements as stylesheets, fonts
  // and images arrive, and a point measured before that misses (Firefox once clicked a link's unstyled place just
  // after its stylesheet applied). So: wait for the load (briefly: a page whose last image never comes still gets
  // its click), then measure until two drawn frames agree and no transition is under way, as a person waits for a
  // page to stop moving.
  const SETTLE_LOAD_MS = 2000;
  const SETTLE_FRAME_MS = 50;
  const SETTLE_MAX_MS = 1000;

  function pageLoaded() {
    if (document.readyState === "complete") return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        window.removeEventListener("load", done);
        resolve();
      };
      const timer = setTimeout(done, SETTLE_LOAD_MS);
      window.addEventListener("load", done);
    });
  }

  // True once a frame is drawn; false when none came within SETTLE_FRAME_MS. Only a drawn frame moves the page's
  // animations on: two measures with no frame between them agree whether or not the element is moving.
  function nextFrame() {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), SETTLE_FRAME_MS);
      requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  // Whether a transition or animation that ends is running on the element or an element around it: one that has
  // just been set has not moved anything yet, and frames alone would call the element still.
  function moving(el) {
    for (let node = el; node; node = flatParent(node)) {
      if (typeof node.getAnimations !== "function") return false;
      for (const animation of node.getAnimations()) {
        const timing = animation.effect ? animation.effect.getComputedTiming() : null;
        if (animation.playState === "running" && timing && Number.isFinite(timing.endTime)) return true;
      }
    }
    return false;
  }

  // Every per-call cache of `run`: the page may have changed since they were filled.
  function forgetMeasures() {
    for (const cache of Object.values(run)) {
      if (cache instanceof Map) cache.clear();
    }
  }

  async function settledCenter(key) {
    await pageLoaded();
    const start = performance.now();
    let point = center(elementFor(key));
    // A hidden tab draws no frames: nothing moves there until it is shown.
    while (point && point.error === undefined && document.visibilityState !== "hidden" &&
           performance.now() - start < SETTLE_MAX_MS) {
      const drawn = await nextFrame();
      forgetMeasures();
      const el = elementFor(key);
      const again = center(el);
      const same = again && again.error === undefined && again.x === point.x && again.y === point.y;
      point = again;
      if (same && drawn && !moving(el)) break;
    }
    return point;
  }

  // ---------------------------------------------------------------------------------------------------------
  // setValue

  function describeElement(el) {
    const role = roleOf(el);
    const tag = el.localName;
    return `<${tag}${isHTML(el, "input") ? ` type=${el.type}` : ""}> (role ${role})`;
  }

  function nativeSetter(el, prop) {
    // The prototype's own setter, from the element's window: React and friends patch the instance's property to
    // track values, and only a write through the prototype looks like a user edit to them.
    let proto = Object.getPrototypeOf(el);
    while (proto) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, prop);
      if (descriptor && descriptor.set) return descriptor.set;
      proto = Object.getPrototypeOf(proto);
    }
    return null;
  }

  function fire(el, inputData) {
    const win = view(el);
    const input = typeof win.InputEvent === "function"
      ? new win.InputEvent("input",
        { bubbles: true, composed: true, inputType: "insertReplacementText", data: inputData })
      : new win.Event("input", { bubbles: true, composed: true });
    el.dispatchEvent(input);
    el.dispatchEvent(new win.Event("change", { bubbles: true }));
  }

  function setValue(el, value) {
    if (!el) return null;
    const html = isHTML(el);
    const tag = el.localName;
    const control = html && (tag === "input" || tag === "select" || tag === "textarea" || tag === "button");
    if (control && matches(el, ":disabled")) {
      return { error: `the ${describeElement(el)} is disabled` };
    }
    const checkable = html && tag === "input" && (el.type === "checkbox" || el.type === "radio");
    if (typeof value === "boolean" || (checkable && (value === "true" || value === "false"))) {
      if (!checkable) {
        return { error: `a true/false value needs a checkbox or radio button, but this is a ${describeElement(el)}` };
      }
      const want = value === true || value === "true";
      if (el.checked !== want) {
        if (el.type === "radio" && !want) {
          // A radio cannot be clicked off: clear it directly.
          nativeSetter(el, "checked").call(el, false);
          fire(el, null);
        } else {
          // A click toggles it and fires click, input and change as a user's click does: React and others only
          // listen to the click on checkboxes and radios. One hidden from sight is clicked through the label a
          // person clicks (whose click clicks the control), so the page's handlers on the label run too.
          const stand = standInElement(el);
          if (stand && isHTML(stand, "label") && stand !== el) stand.click();
          else el.click();
          if (el.checked !== want) {
            return { error: `the page kept the ${describeElement(el)} ${el.checked ? "checked" : "unchecked"} ` +
              "(its click handler cancelled the change)" };
          }
        }
      }
      return { value: String(el.checked) };
    }
    const text = typeof value === "number" ? String(value) : value;
    if (typeof text !== "string") return { error: "the value must be a string, a number or a boolean" };

    if (html && tag === "select") return selectOption(el, text);
    if (html && tag === "input") {
      if (checkable) return { error: `a ${el.type} takes true or false, not ${JSON.stringify(text)}` };
      if (el.type === "file") return { error: "a file input takes files (file_upload), not a value" };
      if (["button", "submit", "reset", "image", "hidden"].includes(el.type)) {
        return { error: `the ${describeElement(el)} has no value to set` };
      }
      if (el.readOnly) return { error: `the ${describeElement(el)} is read-only` };
      markEdited(el);
      nativeSetter(el, "value").call(el, text);
      fire(el, text);
      if (text !== "" && el.value === "") {
        return { error: `the ${describeElement(el)} rejected ${JSON.stringify(text)} (wrong format for this field)` };
      }
      return { value: el.type === "password" ? (el.value ? "•••" : "") : el.value };
    }
    if (html && tag === "textarea") {
      if (el.readOnly) return { error: `the ${describeElement(el)} is read-only` };
      markEdited(el);
      nativeSetter(el, "value").call(el, text);
      fire(el, text);
      return { value: el.value };
    }
    if (el.isContentEditable) {
      el.textContent = text;
      fire(el, text);
      return { value: el.textContent };
    }
    return { error: `the ${describeElement(el)} is not a form control whose value can be set` };
  }

  function selectOption(select, text) {
    const options = Array.from(select.options);
    const wanted = collapse(text);
    const option = options.find((o) => o.value === text) ||
      options.find((o) => collapse(o.text) === wanted || collapse(o.label) === wanted) ||
      options.find((o) => collapse(o.text).toLowerCase() === wanted.toLowerCase());
    if (!option) {
      const names = options.slice(0, 20).map((o) => JSON.stringify(collapse(o.text)));
      const more = options.length > 20 ? `, ... (${options.length} in all)` : "";
      return {
        error: `no option of the select matches ${JSON.stringify(text)} by value or text; ` +
          `options are: ${names.join(", ")}${more}`,
      };
    }
    if (option.disabled) return { error: `the option ${JSON.stringify(collapse(option.text))} is disabled` };
    if (select.multiple) for (const o of options) o.selected = o === option;
    nativeSetter(select, "value").call(select, option.value);
    option.selected = true;
    fire(select, null);
    // the option's text, as the tree shows a select's value, so Claude reads back what it chose
    return { value: collapse(option.label || option.text) };
  }

  // ---------------------------------------------------------------------------------------------------------
  // text

  function pageText() {
    run.focused = null;
    run.textOnly = true;
    const body = document.body || document.documentElement;
    if (!body) return "";
    const vp = viewportSize(window);
    const scope = topScope(0, 0, { hard: UNCLIPPED, view: [0, 0, vp.width, vp.height] });
    // The main content first; then, after a separator line, the rest of the page without its navigation menus.
    const main = mainRegion();
    if (main) {
      const mainText = renderText(main, null);
      if (mainText) {
        const isNavigation = (el) => el.localName === "nav" || el.getAttribute("role") === "navigation";
        const rest = renderText(body, (el) => el === main || isNavigation(el));
        return rest ? `${mainText}\n\n---\n\n${rest}` : mainText;
      }
    }
    return renderText(body, null);

    function renderText(start, skip) {
      const lines = [];
      let line = "";
      // The text node the current line last took characters from, and whether the edge of an inline-level box
      // (inline-block, inline-flex...) has been crossed since, with no whitespace: then layout decides whether
      // the next text joins the line as one word or after a space (glyphsTouch).
      let lastText = null;
      let seam = false;
      const breakLine = () => {
        const text = collapse(line);
        if (text) lines.push(text);
        line = "";
        lastText = null;
        seam = false;
      };
      const crossEdge = () => {
        if (lastText && line && !/\s$/.test(line)) seam = true;
      };
      // Text a control shows (a field's value, a button's label): always set apart by spaces, as the control's
      // border and padding set it apart on screen.
      const addShown = (text) => {
        line += ` ${text} `;
        lastText = null;
        seam = false;
      };
      const startScope = scopeFor(start, scope);
      // Text runs of `parent` (whose enter() info is `info`), then its elements, in flat-tree order.
      const walk = (parent, nodes, sc, info) => {
        let texts = [];
        const flush = () => {
          if (!texts.length) return;
          const seen = textRunVisible(texts, info, sc);
          if (seen && seen.visible) {
            const raw = texts.length === 1 ? texts[0].data : texts.map((t) => t.data).join("");
            const first = seam ? firstInk(texts) : null;
            if (seam && first && /^\S/.test(raw) && !glyphsTouch(lastText, first)) line += " ";
            seam = false;
            // Preformatted text keeps its line breaks; everything else is collapsed into the current line (text
            // without a line break reads the same either way, so needs no style read).
            if (raw.includes("\n") && /^pre|break-spaces/.test(style(parent).whiteSpace)) {
              const parts = raw.split("\n");
              parts.forEach((part, i) => {
                if (i) breakLine();
                line += part;
              });
            } else {
              line += raw;
            }
            const last = lastInk(texts);
            if (last) lastText = last;
          }
          texts = [];
        };
        for (let i = 0, n = nodes.length; i < n; i++) {
          const node = nodes[i];
          const type = node.nodeType;
          if (type === 3) {
            texts.push(node);
            continue;
          }
          if (type !== 1) continue;
          flush();
          element(node, sc);
        }
        flush();
      };
      const element = (el, sc) => {
        const tag = el.localName;
        if (SKIPPED_TAGS.has(tag) || (el.namespaceURI === SVG_NS && (tag === "title" || tag === "desc"))) return;
        if (skip && skip(el)) return;
        if (sc.hiddenContentOf) {
          sc = { ...sc, hidden: !isDetailsSummary(sc.hiddenContentOf, el), hiddenContentOf: null };
        }
        if (sc.hidden) return;
        const info = enter(el, sc);
        if (info.excludedHere || info.ariaHidden || info.child.inert ||
          info.child.transparent || info.child.flow.hard === EMPTY) return;
        const display = info.p.display;
        // Inline-level boxes (inline-block, inline-flex, a button, a text field) sit in the line like a word;
        // block-level boxes and table cells start lines of their own.
        const inlineBox = /^inline[- ]./.test(display);
        const block = display !== "inline" && display !== "contents" && !inlineBox;
        const cell = display === "table-cell";
        if (tag === "br") {
          breakLine();
          return;
        }
        if (cell) {
          if (/\S/.test(line)) line += " | ";
        } else if (block) {
          breakLine();
        }
        if (isHTML(el)) {
          if (tag === "input" || tag === "textarea" || tag === "select") {
            // Controls show text of their own: a field's value, a drop-down's chosen option, a button's label.
            const shown = info.textFlags && info.areaVisible && !offPage(info.box, sc, el) && inkVisible(el);
            const value = shown ? shownValue(el) : "";
            if (value.includes("\n")) {
              // A text area of several lines is a box of lines of its own, shown as typed.
              breakLine();
              for (const part of value.split("\n")) {
                addShown(part);
                breakLine();
              }
            } else if (value) {
              addShown(value);
            }
            if (block && !cell) breakLine();
            return;
          }
          if (tag === "iframe" || tag === "frame") {
            const doc = safeContentDocument(el);
            const fbody = doc && (doc.body || doc.documentElement);
            if (fbody && info.box && info.selfVisible) {
              breakLine();
              const bodyInfo = enter(fbody, frameScope(el, doc, info));
              walk(fbody, flatChildren(fbody), bodyInfo.child, bodyInfo);
              breakLine();
            } else if (!doc && arg && arg.frameMark && info.box && info.selfVisible) {
              // A frame of another origin: a line of its own that the driver replaces with the frame's text.
              breakLine();
              lines.push(arg.frameMark + keyFor(el));
            }
            return;
          }
          if (isLeafControl(el)) return;
        }
        if (!inlineBox) {
          walk(el, flatChildren(el), info.child, info);
          if (block && !cell) breakLine();
          return;
        }
        // An inline-level box joins the line it sits in. One that holds lines of its own (a card made of
        // paragraphs) is set apart like a block instead: the text before it and after it keeps its own lines.
        crossEdge();
        const lineBefore = line;  // collapsed only in the rare case that it is needed below
        const mark = lines.length;
        walk(el, flatChildren(el), info.child, info);
        if (lines.length > mark) {
          const before = collapse(lineBefore);
          const first = lines[mark];
          if (before && first !== before && first.startsWith(before)) {
            const rest = first.slice(before.length).trim();
            lines.splice(mark, 1, before, ...(rest ? [rest] : []));
          }
          breakLine();
          return;
        }
        crossEdge();
      };
      if (startScope.hidden) return "";
      const info = enter(start, startScope);
      if (info.excludedHere) return "";
      walk(start, flatChildren(start), info.child, info);
      breakLine();
      return lines.join("\n");
    }
  }

  // The text a form control shows on screen, which page text includes where the control is: a text field's value
  // (never a password's, which shows only dots), a text area's contents, the chosen options of a select, a
  // button's label; "" for a control that shows none (and for any other element).
  function shownValue(el) {
    const tag = el.localName;
    if (tag === "textarea") return el.value;
    if (tag === "select") return Array.from(el.selectedOptions, (o) => collapse(o.label || o.text)).join(", ");
    if (tag !== "input") return "";
    const type = el.type;
    if (type === "button" || type === "submit" || type === "reset") return el.value;
    if (type === "password" || !TEXT_INPUT_TYPES.has(type)) return "";
    return el.value;
  }

  // The scope an element deep in the page sees: its ancestors' clips and flags, computed root-down.
  function scopeFor(el, top) {
    const chain = [];
    for (let a = flatParent(el); a; a = flatParent(a)) chain.push(a);
    let sc = top;
    for (let i = chain.length - 1; i >= 0; i--) {
      const a = chain[i];
      if (a === document.documentElement) continue;
      const info = enter(a, sc);
      sc = info.child;
      if (sc.hiddenContentOf) {
        const next = i ? chain[i - 1] : el;
        sc = { ...sc, hidden: sc.hidden || !isDetailsSummary(sc.hiddenContentOf, next), hiddenContentOf: null };
      }
    }
    return sc;
  }

  // The page's main-content region: the largest visible <main>, [role=main] or <article>.
  function mainRegion() {
    let best = null;
    let bestArea = 0;
    for (const el of document.querySelectorAll("main, [role=main], article")) {
      if (excluded(el)) continue;
      const r = el.getBoundingClientRect();
      const area = r.width * r.height;
      if (area > bestArea) {
        best = el;
        bestArea = area;
      }
    }
    return best;
  }

  // ---------------------------------------------------------------------------------------------------------
  // inspect (tests and debugging): the same role/name/state code as the snapshot, for chosen elements.

  function deepQueryAll(root, selector) {
    const out = Array.from(root.querySelectorAll(selector));
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) out.push(...deepQueryAll(el.shadowRoot, selector));
    return out;
  }

  function inspect(selector) {
    run.focused = deepActiveElement();
    return deepQueryAll(document, selector).map((el) => {
      const role = roleOf(el);
      const name = accessibleName(el);
      const inherited = { disabled: !!(el.parentElement && el.parentElement.closest("[aria-disabled=true]")) };
      return {
        testname: el.getAttribute("data-testname"),
        key: keyFor(el),
        role,
        name,
        description: accessibleDescription(el, name),
        value: valueOf(el, role),
        placeholder: collapse(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder")),
        states: statesOf(el, role, inherited),
        level: levelOf(el, role),
      };
    });
  }

  // ---------------------------------------------------------------------------------------------------------

  // The parent across shadow roots and out of same-origin frames.
  function upOut(n) {
    return flatParent(n) || (n.ownerDocument.defaultView && n.ownerDocument.defaultView.frameElement) || null;
  }

  function nameOrLabel(n) {
    try {
      return accessibleName(n);
    } catch (e) {
      return collapse(n.getAttribute("aria-label"));
    }
  }

  // The names of the named forms, dialogs and regions around `el`, nearest first.
  function contextAround(el) {
    const context = [];
    for (let n = upOut(el); n && context.length < 8; n = upOut(n)) {
      if (n.nodeType !== 1 || !CONTEXT_ROLES.has(roleOf(n))) continue;
      const name = nameOrLabel(n);
      if (name) context.push(name);
    }
    return context;
  }

  // elementAt: the element a click at a top-level viewport point would hit (document.elementFromPoint, descending
  // into same-origin frames and open shadow roots), described by its nearest ancestor-or-self that has a name or a
  // role of its own (the span inside a button describes as the button). With `of`, whether a click there reaches
  // that element: the hit is the element, inside it (across shadow roots and frames), or inside one of its labels.
  function elementAt(x, y, ofKey) {
    const of = ofKey ? elementFor(ofKey) : null;
    if (ofKey && !of) return { gone: true };
    let doc = document;
    let hit = null;
    for (let depth = 0; depth < 32; depth++) {
      let found = doc.elementFromPoint(x, y);
      while (found && found.shadowRoot) {
        const inner = found.shadowRoot.elementFromPoint(x, y);
        if (!inner || inner === found) break;
        found = inner;
      }
      if (!found) break;
      hit = found;
      if (found.localName !== "iframe" && found.localName !== "frame") break;
      let inner = null;
      try {
        inner = found.contentDocument;
      } catch (e) {
        inner = null;  // another origin: the frame is what a click hits
      }
      if (!inner) break;
      const r = found.getBoundingClientRect();
      const [ox, oy] = frameOrigin(found, [r.left, r.top, r.width, r.height]);
      x -= ox;
      y -= oy;
      doc = inner;
    }
    if (!hit) return null;
    let shown = hit;
    for (let n = hit; n && n !== n.ownerDocument.body && n !== n.ownerDocument.documentElement; n = upOut(n)) {
      if (!WRAPPER_ROLES.has(roleOf(n)) || nameOrLabel(n)) {
        shown = n;
        break;
      }
    }
    const out = { key: keyFor(shown), role: roleOf(shown), name: nameOrLabel(shown), context: contextAround(shown),
      action: actionOf(shown) };
    if (of) {
      let within = false;
      for (let n = hit; n && !within; n = upOut(n)) within = n === of;
      if (!within && of.labels) within = Array.from(of.labels).some((label) => label.contains(hit));
      // An image map's area is hit as its image in some browsers; a click there still follows the area.
      if (!within && isHTML(of, "area")) within = hit === imageOfArea(of);
      // A control hidden from sight is reached through its stand-in (a custom drop-down's face).
      if (!within && concealable(of)) {
        const stand = standInElement(of);
        within = !!stand && stand.contains(hit);
      }
      // An option of a list box is hit-tested as its <select> in some browsers; a click there still picks it.
      if (!within && hit.localName === "select" && hit.contains(of)) within = true;
      out.within = within;
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------------------

  const args = arg || {};
  switch (op) {
    case "snapshot":
      return snapshot(args);
    case "element":
      return args.frames ? frameFacts(args.frames) : elementFor(args.key);
    case "center":
      // With `probe`, also what a click at the centre would hit (elementAt), in the same round trip: a ref click
      // asks both, one right after the other.
      return settledCenter(args.key).then((point) => {
        if (args.probe && point && point.error === undefined) point.at = elementAt(point.x, point.y, args.key);
        return point;
      });
    case "elementAt":
      return elementAt(Number(args.x), Number(args.y), args.of || null);
    case "keyTarget":
      return keyTarget(String(args.key), !!args.moved);
    case "scrollIntoView": {
      const el = elementFor(args.key);
      if (!el) return null;
      scrollTarget(standInElement(el) || el).scrollIntoView({ block: "center", inline: "center",
        behavior: "instant" });
      return true;
    }
    case "setValue":
      return setValue(elementFor(args.key), args.value);
    case "text":
      return pageText();
    case "inspect":
      return inspect(args.selector || "*");
    default:
      throw new Error(`walker: unknown op ${JSON.stringify(op)}`);
  }
}
