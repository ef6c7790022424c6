// Tournament settings page: the form is sent as JSON to PUT /api/v1/tournaments/{id}/settings
// with the write key as a Bearer header.  The key is kept in this tab's sessionStorage under
// the upload page's name, so it is typed once per tab.  A refusal shows the API's problem.

const KEY = "rummy-audit.api-key";
const $ = (id) => document.getElementById(id);
const form = $("settings-form");
const result = $("settings-result");
const keyField = $("api-key");

keyField.value = sessionStorage.getItem(KEY) ?? "";
keyField.addEventListener("input", () => {
  if (keyField.value) sessionStorage.setItem(KEY, keyField.value);
  else sessionStorage.removeItem(KEY);
});

function text(id) {
  const value = $(id).value.trim();
  return value === "" ? null : value;
}

function body() {
  const out = {
    name: text("s-name"),
    venue: text("s-venue"),
    ranking: $("s-ranking").value,
    match_points: Object.fromEntries(["win", "draw", "loss"].map(
      (part) => [part, Number($(`s-mp-${part}`).value)])),
    tie_breaks: [...form.querySelectorAll("select.tie-break")].map((s) => s.value).filter((v) => v),
    public: $("s-public").checked,
  };
  const start = text("s-start");
  const end = text("s-end");
  if (start !== null || end !== null) out.dates = { start, end };
  return out;
}

function problemText(problem, status) {
  const lines = [`Refused (HTTP ${status}): ${problem.detail ?? problem.title ?? "no detail"}`];
  for (const [field, messages] of Object.entries(problem.errors ?? {})) {
    lines.push(`${field}: ${[].concat(messages).join("; ")}`);
  }
  return lines.join("\n");
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  result.className = "";
  result.textContent = "Saving…";
  const headers = { "Content-Type": "application/json", Accept: "application/json" };
  if (keyField.value) headers.Authorization = `Bearer ${keyField.value}`;
  let response;
  try {
    response = await fetch(form.dataset.url, { method: "PUT", headers, body: JSON.stringify(body()) });
  } catch (error) {
    result.className = "error";
    result.textContent = `Not sent: ${error.message}`;
    return;
  }
  const answer = await response.json().catch(() => ({}));
  if (response.ok) {
    result.className = "saved";
    result.textContent = `Saved${answer.updated_by ? ` by ${answer.updated_by}` : ""}.`;
  } else {
    result.className = "error";
    result.textContent = problemText(answer, response.status);
  }
});
