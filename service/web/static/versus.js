// Head-to-head on the player page: the form asks the head-to-head page
// (/players/{a}/versus?opponent={b}) and, with JavaScript, its result is shown in the
// player page instead of opening that page.  Without JavaScript the form opens it.
const form = document.getElementById("versus-form");
const out = document.getElementById("versus");

function say(text, refused) {
  const p = document.createElement("p");
  p.textContent = text;
  if (refused) p.className = "error";
  out.replaceChildren(p);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const query = new URLSearchParams(new FormData(form));
  const opponent = (query.get("opponent") ?? "").trim();
  if (!opponent) return;
  if (opponent === form.dataset.player) {  // the page would refuse it: no need to ask
    say(form.dataset.refusal, true);
    return;
  }
  query.set("opponent", opponent);
  const url = `${form.action}?${query}`;
  out.setAttribute("aria-busy", "true");
  try {
    const response = await fetch(url, { headers: { Accept: "text/html" } });
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const result = page.getElementById("versus-result");
    if (result) {
      result.id = "versus-shown";
      for (const heading of result.querySelectorAll("[id]")) heading.removeAttribute("id");
      result.removeAttribute("aria-labelledby");
      const link = document.createElement("p");
      const a = document.createElement("a");
      a.href = url;
      a.textContent = "Open this head-to-head on its own page";
      link.append(a);
      out.replaceChildren(document.adoptNode(result), link);
    } else {
      say(page.querySelector("main .lead")?.textContent ?? `HTTP ${response.status}`,
          true);
    }
  } catch (error) {
    say(`The head-to-head could not be read: ${error.message}`, true);
  } finally {
    out.removeAttribute("aria-busy");
  }
});
