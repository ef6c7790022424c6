// Head-to-head on the player page: asks GET /api/v1/players/{a}/versus/{b}.
const form = document.getElementById("versus-form");
const out = document.getElementById("versus");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const opponent = document.getElementById("opponent").value.trim();
  if (!opponent) return;
  const url = `${form.action}${encodeURIComponent(opponent)}`;
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) {
    out.textContent = body.detail ?? `HTTP ${response.status}`;
    return;
  }
  const [a, b] = body.players;
  out.textContent = `${body.games} games as opponents, ${body.finished} finished: ${a} won ${body.wins[a]}, ${b} won ${body.wins[b]}; points ${a} ${body.points[a]}, ${b} ${body.points[b]}.`;
});
