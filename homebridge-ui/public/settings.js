// The eKey Locks settings page (docs/architecture.md "The settings page"). It talks only to
// window.homebridge (the Homebridge UI's iframe contract) and through it to server.js. Every wait
// ends: each request has a deadline, after which the page says what went wrong.
(() => {
  'use strict';

  const homebridge = window.homebridge;
  // The page is a fragment in the Homebridge UI's frame: its document says which language it is in.
  if (!document.documentElement.lang) document.documentElement.lang = 'en';
  const STATUS_TIMEOUT_MS = 15000;
  const OWNER_TIMEOUT_MS = 20000;
  const SCAN_SECONDS = 10;
  const PAIR_TIMEOUT_S = 30;
  const BOLT_TEXT = { locked: 'Locked', unlocked: 'Unlocked', jammed: 'Jammed', unknown: 'Unknown' };
  // What a lock can do beyond lock and unlock, in the page's words (SetupLock.features).
  const FEATURE_TEXT = { keypad: 'keypad', unlatch: 'opens the door', door_sensor: 'door sensor' };

  const $ = (id) => document.getElementById(id);
  let checking = false;
  /** The pairing cards by family: each one's elements and state. */
  const pairings = new Map();

  /** A request to server.js that ends within `ms`, with the server's message on failure. */
  function ask(path, body, ms) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`The settings page's server did not answer within ${Math.round(ms / 1000)} s. Close and reopen this page; if it stays so, restart the Homebridge UI.`));
      }, ms);
      homebridge.request(path, body).then(
        (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        (failure) => {
          clearTimeout(timer);
          const message = failure && typeof failure.message === 'string' ? failure.message : 'The request failed.';
          reject(new Error(message));
        },
      );
    });
  }

  /**
   * States shown as alerts: an error as the theme's alert-danger, a success as alert-success. The
   * Homebridge UI's theme draws both alike (a grey box, or none in dark mode), so each also gets a
   * mark and an edge of its own (settings.css: ✓ green, ⚠ red, in light and dark); the words
   * themselves say which it is.
   */
  const OUTCOME_OF = { error: 'error', stopped: 'error', unreachable: 'error', unreadable: 'error', refused: 'error', done: 'ok', running: 'ok' };

  function setText(element, text, state) {
    element.textContent = text;
    if (state === undefined) return;
    element.dataset.state = state;
    element.classList.remove('alert', 'alert-danger', 'alert-success', 'ekl-outcome', 'ekl-outcome-error', 'ekl-outcome-ok');
    const outcome = OUTCOME_OF[state];
    if (outcome === undefined || text === '') return;
    element.classList.add('alert', outcome === 'error' ? 'alert-danger' : 'alert-success', 'ekl-outcome', `ekl-outcome-${outcome}`);
  }

  /** Shows an error about a field and moves the focus to it, so the user can fix it at once. */
  function fieldError(result, field, text) {
    setText(result, text, 'error');
    field.focus();
  }

  function webAppUrl(service) {
    if (service.public_url) return `${service.base_url.replace(/\/$/, '')}/app/`;
    // The browser reaches the service on the host that serves the Homebridge UI, not on its loopback.
    const host = window.location.hostname.includes(':') ? `[${window.location.hostname}]` : window.location.hostname;
    return `http://${host}:${service.port}/app/`;
  }

  /** "Thu 26 Nov 2026, 17:05 (Europe/Berlin)": the web app's one date format, on this browser's clock. */
  function sinceText(iso) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    const parts = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso));
    const part = (type) => (parts.find((entry) => entry.type === type) || { value: '' }).value;
    return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}, ${part('hour')}:${part('minute')} (${zone})`;
  }

  function formatBattery(level) {
    return level === null || level === undefined ? '—' : `${Math.round(level * 100)} %`;
  }

  /**
   * A table cell whose text keeps the page's text colour: the Homebridge UI's theme greys every
   * `td` (#999 !important, 2.8:1 on white), below WCAG AA; the text sits in a span of its own.
   */
  function cell(text, className) {
    const td = document.createElement('td');
    // Explicit roles: on a phone the table is laid out as cards (settings.css), still a table.
    td.setAttribute('role', 'cell');
    const span = document.createElement('span');
    span.className = `ekl-cell${className ? ` ${className}` : ''}`;
    span.textContent = text;
    td.append(span);
    return td;
  }

  /**
   * A lock's state in the words that fit it: a door lock's bolt; an Opener (an intercom's door
   * opener, which has no bolt) by its mode, or whether its strike is open.
   */
  function stateText(lock) {
    const features = lock.features || [];
    if (!features.includes('opener')) return BOLT_TEXT[lock.bolt_state] || 'Unknown';
    if (lock.modes && lock.modes.continuous_mode) return 'Continuous Mode on';
    if (lock.modes && lock.modes.ring_to_open) return 'Ring to Open on';
    if (lock.bolt_state === 'unlocked') return 'Opening';
    return lock.bolt_state === 'locked' ? 'Closed' : 'Unknown';
  }

  /** "Nuki Smart Lock · keypad · opens the door": what the lock is and can do. */
  function kindText(lock) {
    const extras = (lock.features || []).map((feature) => FEATURE_TEXT[feature]).filter(Boolean);
    return [lock.family_name || lock.family, ...extras].join(' · ');
  }

  function renderLocks(locks) {
    const table = $('ekl-locks');
    const body = table.querySelector('tbody');
    body.replaceChildren();
    for (const lock of locks) {
      const row = document.createElement('tr');
      row.setAttribute('role', 'row');
      const name = document.createElement('th');
      name.scope = 'row';
      name.setAttribute('role', 'rowheader');
      const title = document.createElement('span');
      title.className = 'ekl-lock-name';
      title.textContent = lock.name;
      const kind = document.createElement('span');
      kind.className = 'ekl-lock-kind';
      kind.textContent = kindText(lock);
      name.append(title, kind);
      const state = cell(stateText(lock), `ekl-bolt ekl-bolt-${lock.bolt_state}`);
      const online = cell(!lock.gateway ? 'No gateway' : lock.online_status === 'online' ? 'Online' : 'Offline');
      const battery = cell(formatBattery(lock.battery_level));
      // Phones show each row as a card: each cell says which column it is.
      state.dataset.label = 'State';
      online.dataset.label = 'Connection';
      battery.dataset.label = 'Battery';
      row.append(name, state, online, battery);
      body.append(row);
    }
    table.hidden = locks.length === 0;
    $('ekl-locks-empty').hidden = locks.length !== 0;
    if (locks.length === 0) $('ekl-locks-empty').textContent = 'No lock is configured yet: add one in the configuration below.';
  }

  /** docs/design.md §4e: every gateway device (the host's adapter, each Bluetooth proxy) with its state and free slots. */
  function renderGateways(gateways) {
    const table = $('ekl-gateways');
    const body = table.querySelector('tbody');
    body.replaceChildren();
    for (const gateway of gateways) {
      const row = document.createElement('tr');
      row.setAttribute('role', 'row');
      const name = document.createElement('th');
      name.scope = 'row';
      name.setAttribute('role', 'rowheader');
      const title = document.createElement('span');
      title.className = 'ekl-lock-name';
      title.textContent = gateway.kind === 'host' ? 'This host\'s Bluetooth' : gateway.name;
      const kind = document.createElement('span');
      kind.className = 'ekl-lock-kind';
      kind.textContent = gateway.kind === 'host' ? 'host' : `ESPHome proxy${gateway.address ? ` · ${gateway.address}` : ''}`;
      name.append(title, kind);
      const state = cell(GATEWAY_STATE_WORDS[gateway.state] || gateway.state);
      const slots = cell(gateway.connections_limit === null || gateway.connections_free === null ? '—' : `${gateway.connections_free} of ${gateway.connections_limit} free`);
      state.dataset.label = 'State';
      slots.dataset.label = 'Free slots';
      row.append(name, state, slots);
      body.append(row);
    }
    table.hidden = gateways.length === 0;
    $('ekl-gateways-empty').hidden = gateways.length !== 0;
  }

  const GATEWAY_STATE_WORDS = {
    online: 'Online',
    offline: 'Offline (trying again)',
    unauthorized: 'Refused: check its encryption key',
    unavailable: 'No Bluetooth on this host',
  };

  function renderOwners(owners) {
    const waiting = owners.filter((owner) => !owner.active);
    const active = owners.filter((owner) => owner.active);
    const select = $('ekl-owner-email');
    select.replaceChildren(...waiting.map((owner) => new Option(owner.email, owner.email)));
    $('ekl-owner-form').hidden = waiting.length === 0;
    const parts = [];
    if (waiting.length > 0) parts.push(`Create the account of ${waiting.map((owner) => owner.email).join(', ')} to sign in to the web app and share keys.`);
    if (active.length > 0) parts.push(`Active: ${active.map((owner) => owner.email).join(', ')} — sign in to the web app with it.`);
    if (owners.length === 0) parts.push('No lock owner yet: add a lock with its owner\'s e-mail in the configuration below, save and restart Homebridge.');
    $('ekl-owner-info').textContent = parts.join(' ');
  }

  /** What the running service left out of its config, in the log's words, as a list. */
  function renderConfigProblems(lines) {
    const box = $('ekl-config-problems');
    const list = $('ekl-config-problem-list');
    list.replaceChildren(...lines.map((line) => {
      const item = document.createElement('li');
      item.textContent = line;
      return item;
    }));
    box.hidden = lines.length === 0;
  }

  /** The address, breakable only after its scheme (never inside a host name or the port). */
  function renderAddress(element, url) {
    const match = /^([a-z]+:\/\/)(.*)$/i.exec(url);
    element.replaceChildren();
    if (!match) {
      element.textContent = url;
      return;
    }
    const rest = document.createElement('span');
    rest.className = 'ekl-nowrap';
    rest.textContent = match[2];
    element.append(match[1], document.createElement('wbr'), rest);
  }

  /** docs/design.md §12: each rental calendar, whether its last refresh read it (and why not), and its stays to come. */
  function renderCalendars(calendars) {
    const table = $('ekl-calendars');
    const body = table.querySelector('tbody');
    body.replaceChildren();
    for (const calendar of calendars) {
      const row = document.createElement('tr');
      row.setAttribute('role', 'row');
      const name = document.createElement('th');
      name.scope = 'row';
      name.setAttribute('role', 'rowheader');
      name.textContent = calendar.locks.join(', ');
      const read = calendar.last_refresh_at ? ` (read ${sinceText(calendar.last_refresh_at)})` : '';
      const state = cell(calendar.state === 'ok' ? `Up to date${read}` : `Could not be read${read}: ${calendar.last_error || 'no reason was given'}`);
      if (calendar.state !== 'ok') state.classList.add('ekl-problem');
      const stays = cell(calendar.bookings === 1 ? '1 to come' : `${calendar.bookings} to come`);
      state.dataset.label = 'State';
      stays.dataset.label = 'Stays';
      row.append(name, state, stays);
      body.append(row);
    }
    table.hidden = calendars.length === 0;
    $('ekl-calendars-empty').hidden = calendars.length !== 0;
  }

  function renderStopped(service) {
    setText($('ekl-service-status'), service.message, service.state);
    renderConfigProblems([]);
    $('ekl-service-details').hidden = true;
    $('ekl-open-app').hidden = true;
    $('ekl-locks').hidden = true;
    $('ekl-gateways').hidden = true;
    $('ekl-gateways-empty').hidden = false;
    $('ekl-calendars').hidden = true;
    $('ekl-calendars-empty').hidden = false;
    $('ekl-locks-empty').hidden = false;
    $('ekl-locks-empty').textContent = 'The locks appear here once the service runs.';
    $('ekl-owner-form').hidden = true;
    $('ekl-owner-info').textContent = 'The owner\'s account can be created once the service runs.';
  }

  async function refresh() {
    if (checking) return;
    checking = true;
    $('ekl-refresh').disabled = true;
    setText($('ekl-service-status'), 'Checking the service…', 'checking');
    try {
      const service = await ask('/status', {}, STATUS_TIMEOUT_MS);
      if (service.state !== 'running') {
        renderStopped(service);
        return;
      }
      setText($('ekl-service-status'), service.message, 'running');
      renderAddress($('ekl-service-address'), service.base_url);
      renderConfigProblems(service.config_problems || []);
      $('ekl-service-since').textContent = sinceText(service.started_at);
      $('ekl-service-details').hidden = false;
      const link = $('ekl-open-app');
      link.href = webAppUrl(service);
      link.hidden = false;
      renderLocks(service.locks);
      renderGateways(service.gateways || []);
      renderCalendars(service.calendars || []);
      renderOwners(service.owners);
    } catch (error) {
      renderStopped({ state: 'error', message: error.message });
    } finally {
      checking = false;
      $('ekl-refresh').disabled = false;
    }
  }

  async function createOwner(event) {
    event.preventDefault();
    const result = $('ekl-owner-result');
    const button = $('ekl-owner-create');
    const email = $('ekl-owner-email').value;
    const name = $('ekl-owner-name').value.trim();
    const password = $('ekl-owner-password').value;
    if (name === '') return fieldError(result, $('ekl-owner-name'), 'Enter the owner\'s name.');
    if (password.length < 8) return fieldError(result, $('ekl-owner-password'), 'The password needs at least 8 characters.');
    button.disabled = true;
    setText(result, `Creating the account of ${email}…`, 'busy');
    try {
      const created = await ask('/owner', { email, name, password }, OWNER_TIMEOUT_MS);
      $('ekl-owner-password').value = '';
      // The card's first line now says it is active and what to do with it: this only confirms.
      setText(result, `Account of ${created.email} created.`, 'done');
      homebridge.toast.success(`Account of ${created.email} created.`, 'eKey Locks');
      await refresh();
    } catch (error) {
      setText(result, error.message, 'error');
    } finally {
      button.disabled = false;
    }
  }

  /** An element with a class, an id and text, in one call. */
  function element(tag, { id, className, text } = {}) {
    const created = document.createElement(tag);
    if (id) created.id = id;
    if (className) created.className = className;
    if (text !== undefined) created.textContent = text;
    return created;
  }

  /**
   * One "Pair a …" card for a family whose locks are paired (docs/architecture.md "The settings
   * page"): scan, choose, pair, add to the config. Its words come from the family (`/pairing`).
   */
  function renderPairing(family) {
    const key = `ekl-pair-${family.family.replace(/[^a-z0-9-]/gi, '')}`;
    const section = element('section', { className: 'card ekl-card' });
    section.setAttribute('aria-labelledby', `${key}-heading`);
    const body = element('div', { className: 'card-body' });
    body.append(element('h2', { id: `${key}-heading`, className: 'h5', text: `Pair a ${family.noun}` }));
    const steps = element('ol', { className: 'ekl-steps' });
    for (const step of family.steps) steps.append(element('li', { text: step }));
    const actions = element('div', { className: 'ekl-actions' });
    const scanButton = element('button', { id: `${key}-scan`, className: 'btn btn-secondary', text: `Scan for ${family.noun}s` });
    scanButton.type = 'button';
    actions.append(scanButton);
    const found = element('fieldset', { id: `${key}-found`, className: 'ekl-fieldset' });
    found.hidden = true;
    found.append(element('legend', { className: 'form-label', text: `${family.noun[0].toUpperCase()}${family.noun.slice(1)}s nearby` }));
    const choices = element('div', { id: `${key}-choices` });
    found.append(choices);
    let nameField = null;
    if (family.ourName) {
      const wrapper = element('div', { className: 'mb-2' });
      const label = element('label', { className: 'form-label', text: family.ourName.label });
      label.htmlFor = `${key}-name`;
      nameField = element('input', { id: `${key}-name`, className: 'form-control' });
      nameField.type = 'text';
      nameField.maxLength = family.ourName.maxBytes;
      nameField.value = family.ourName.default;
      wrapper.append(label, nameField);
      found.append(wrapper);
    }
    let pinField = null;
    let pinLabel = null;
    let pinHint = null;
    if (family.pin) {
      const wrapper = element('div', { className: 'mb-2' });
      pinLabel = element('label', { id: `${key}-pin-label`, className: 'form-label', text: family.pin.optionalLabel });
      pinLabel.htmlFor = `${key}-pin`;
      pinField = element('input', { id: `${key}-pin`, className: 'form-control' });
      pinField.type = 'password';
      pinField.inputMode = 'numeric';
      pinField.autocomplete = 'off';
      pinField.maxLength = family.pin.digits;
      pinField.setAttribute('aria-describedby', `${key}-pin-hint`);
      pinHint = element('p', { id: `${key}-pin-hint`, className: 'form-text', text: family.pin.neededHint });
      pinHint.hidden = true;
      wrapper.append(pinLabel, pinField, pinHint);
      found.append(wrapper);
    }
    const pairButton = element('button', { id: `${key}-pair`, className: 'btn btn-primary', text: 'Pair the chosen lock' });
    pairButton.type = 'button';
    found.append(pairButton);
    const log = element('pre', { id: `${key}-log`, className: 'ekl-log' });
    log.setAttribute('aria-live', 'polite');
    log.setAttribute('aria-label', 'Pairing progress');
    log.hidden = true;
    const result = element('p', { id: `${key}-result`, className: 'ekl-result' });
    result.setAttribute('role', 'status');
    const addButton = element('button', { id: `${key}-add`, className: 'btn btn-primary', text: 'Add the paired lock to the config' });
    addButton.type = 'button';
    addButton.hidden = true;
    body.append(steps, actions, found, log, result, addButton);
    section.append(body);

    const card = { family, key, scanButton, pairButton, addButton, found, choices, nameField, pinField, pinLabel, pinHint, log, result, scanning: false, paired: null };
    pairings.set(family.family, card);
    scanButton.addEventListener('click', () => void scan(card));
    pairButton.addEventListener('click', () => void pair(card));
    addButton.addEventListener('click', () => void addPairedLock(card));
    return section;
  }

  async function loadPairing() {
    try {
      const answer = await ask('/pairing', {}, STATUS_TIMEOUT_MS);
      $('ekl-pairing').replaceChildren(...answer.families.map(renderPairing));
    } catch {
      // Without the list there is nothing to pair from here; the CLI still pairs.
    }
  }

  function logLine(card, line) {
    card.log.hidden = false;
    card.log.textContent += `${line}\n`;
  }

  function setBluetoothBusy(busy) {
    for (const card of pairings.values()) {
      card.scanButton.disabled = busy;
      card.pairButton.disabled = busy;
    }
  }

  async function scan(card) {
    const { result, family } = card;
    card.log.textContent = '';
    card.found.hidden = true;
    card.addButton.hidden = true;
    setBluetoothBusy(true);
    // A scan's progress lines are not shown (its answer lists what it heard); a pairing's are.
    card.scanning = true;
    setText(result, `Scanning for up to ${SCAN_SECONDS} s…`, 'busy');
    try {
      const answer = await ask('/scan', { family: family.family, seconds: SCAN_SECONDS }, (SCAN_SECONDS + 20) * 1000);
      card.choices.replaceChildren();
      answer.locks.forEach((lock, index) => {
        const id = `${card.key}-choice-${index}`;
        const wrapper = element('div', { className: 'form-check' });
        const input = element('input', { id, className: 'form-check-input' });
        input.type = 'radio';
        input.name = `${card.key}-address`;
        input.value = lock.address;
        input.checked = index === 0;
        // docs/design.md §4d: some devices (a Nuki on API 2.3) pair only with their PIN.
        input.dataset.pinRequired = lock.pin_required ? 'true' : 'false';
        input.addEventListener('change', () => showPinNeed(card));
        const label = element('label', { className: 'form-check-label' });
        label.htmlFor = id;
        const level = lock.api_level ? `, Bluetooth API ${lock.api_level}` : '';
        // docs/design.md §4e: the gateway that heard it (this host's adapter or a Bluetooth proxy).
        const heardBy = !lock.gateway ? '' : lock.gateway === 'host' ? ', heard by this host' : `, heard by ${lock.gateway}`;
        label.textContent = `${lock.model} ${lock.address}${level}${lock.rssi === null ? '' : ` (${lock.rssi} dBm)`}${heardBy}`;
        wrapper.append(input, label);
        card.choices.append(wrapper);
      });
      showPinNeed(card);
      card.found.hidden = answer.locks.length === 0;
      const count = answer.locks.length;
      setText(
        result,
        count === 0 ? `No ${family.noun} heard. Is Bluetooth on, the lock in range and its batteries in?` : `${count === 1 ? `One ${family.noun}` : `${count} ${family.noun}s`} found. ${family.afterScan}`,
        count === 0 ? 'error' : 'done',
      );
    } catch (error) {
      setText(result, error.message, 'error');
    } finally {
      card.scanning = false;
      setBluetoothBusy(false);
    }
  }

  function chosenDevice(card) {
    return card.choices.querySelector(`input[name="${card.key}-address"]:checked`);
  }

  /** The PIN field says whether the chosen device needs it to pair. */
  function showPinNeed(card) {
    if (!card.pinField) return;
    const chosen = chosenDevice(card);
    const needed = chosen !== null && chosen.dataset.pinRequired === 'true';
    card.pinLabel.textContent = needed ? card.family.pin.neededLabel : card.family.pin.optionalLabel;
    card.pinField.required = needed;
    card.pinHint.hidden = !needed;
  }

  async function pair(card) {
    const { result, family } = card;
    const chosen = chosenDevice(card);
    if (!chosen) return setText(result, 'Choose a lock first.', 'error');
    const pin = card.pinField ? card.pinField.value.trim() : '';
    if (chosen.dataset.pinRequired === 'true' && !new RegExp(`^\\d{${family.pin.digits}}$`).test(pin)) {
      return fieldError(result, card.pinField, family.pin.neededError);
    }
    card.log.textContent = '';
    card.addButton.hidden = true;
    setBluetoothBusy(true);
    setText(result, `Pairing with ${chosen.value}… hold the lock's button for 5 s now.`, 'busy');
    try {
      const answer = await ask(
        '/pair',
        { family: family.family, address: chosen.value, name: card.nameField ? card.nameField.value : '', pin, timeout_s: PAIR_TIMEOUT_S },
        (PAIR_TIMEOUT_S + 30) * 1000,
      );
      card.paired = answer.lock;
      if (card.pinField) card.pinField.value = '';
      setText(result, `Paired with ${chosen.value}. Add it to the config, set its owner's e-mail, save and restart Homebridge.`, 'done');
      card.addButton.hidden = false;
    } catch (error) {
      setText(result, error.message, 'error');
    } finally {
      setBluetoothBusy(false);
    }
  }

  async function addPairedLock(card) {
    const { result } = card;
    const paired = card.paired;
    if (!paired) return;
    try {
      const config = await withDeadline(homebridge.getPluginConfig(), 10000, 'The Homebridge UI did not hand over the config.');
      const block = config[0] || { platform: 'EKeyLocks', name: 'eKey Locks' };
      const locks = Array.isArray(block.locks) ? block.locks : [];
      const address = String(paired.address || '').toUpperCase();
      const owners = locks.map((lock) => lock.owner_email).filter(Boolean);
      // The pairing says what it paired (its family, its name) and where.
      const entry = { ...paired, address, owner_email: owners[0] || '' };
      block.locks = [...locks.filter((lock) => String(lock.address || '').toUpperCase() !== address), entry];
      await withDeadline(homebridge.updatePluginConfig([block, ...config.slice(1)]), 10000, 'The Homebridge UI did not take the config.');
      setText(result, `Added ${address} to the locks in the configuration below: check its name and owner, then save and restart Homebridge.`, 'done');
      card.addButton.hidden = true;
    } catch (error) {
      setText(result, error.message, 'error');
    }
  }

  function withDeadline(promise, ms, message) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(message)), ms);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (failure) => {
          clearTimeout(timer);
          reject(new Error(failure && failure.message ? failure.message : message));
        },
      );
    });
  }

  /**
   * The config form keeps only what it can edit: a lock field written as a map (a Nuki's
   * `nuki_users`, name → e-mail) would be lost at the next Save. The same entries as a list (which
   * the service reads alike) survive it, so the page hands the form that shape first; which
   * fields, and the list's names, come from the families (`/form`).
   */
  async function formFriendlyConfig() {
    const { listFields } = await ask('/form', {}, STATUS_TIMEOUT_MS);
    if (listFields.length === 0) return;
    const config = await withDeadline(homebridge.getPluginConfig(), 10000, 'The Homebridge UI did not hand over the config.');
    let changed = false;
    const blocks = config.map((block) => {
      if (!block || !Array.isArray(block.locks)) return block;
      const locks = block.locks.map((lock) => {
        let entry = lock;
        for (const { field, key, value } of listFields) {
          const map = entry && entry[field];
          if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
          changed = true;
          entry = { ...entry, [field]: Object.entries(map).map(([name, target]) => ({ [key]: name, [value]: target })) };
        }
        return entry;
      });
      return { ...block, locks };
    });
    if (changed) await withDeadline(homebridge.updatePluginConfig(blocks), 10000, 'The Homebridge UI did not take the config.');
  }

  async function showForm() {
    try {
      await formFriendlyConfig();
    } catch {
      // The form still shows; only the list shape of a map field could not be handed over.
    }
    // The config form of config.schema.json, under this page.
    homebridge.showSchemaForm();
  }

  /** docs/home-assistant.md: "Test connection" tries the form's MQTT settings, unsaved. */
  async function testMqtt() {
    const button = $('ekl-mqtt-test');
    const result = $('ekl-mqtt-result');
    button.disabled = true;
    result.dataset.state = 'checking';
    result.textContent = 'Connecting to the broker…';
    try {
      const config = await withDeadline(homebridge.getPluginConfig(), 10000, 'The Homebridge UI did not hand over the config.');
      const answer = await ask('/mqtt-test', { mqtt: (config[0] || {}).mqtt }, 20000);
      result.dataset.state = answer.ok ? 'ok' : 'error';
      result.textContent = answer.message;
    } catch (error) {
      result.dataset.state = 'error';
      result.textContent = error.message;
    } finally {
      button.disabled = false;
      button.focus();
    }
  }

  function start() {
    $('ekl-refresh').addEventListener('click', () => void refresh());
    $('ekl-mqtt-test').addEventListener('click', () => void testMqtt());
    $('ekl-owner-form').addEventListener('submit', (event) => void createOwner(event));
    homebridge.addEventListener('pairing-progress', (event) => {
      const card = pairings.get(event.data.family);
      if (card && !card.scanning) logLine(card, event.data.line);
    });
    void loadPairing();
    void showForm();
    void refresh();
  }

  homebridge.addEventListener('ready', start, { once: true });
})();
