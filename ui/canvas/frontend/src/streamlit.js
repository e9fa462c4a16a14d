// The Streamlit component protocol (what streamlit-component-lib does, without its
// Arrow dependency): announce readiness, receive "render" with the args, send values back.
const post = (type, data) =>
  window.parent.postMessage({ isStreamlitMessage: true, type, ...data }, "*");

export function onRender(callback) {
  window.addEventListener("message", (event) => {
    if (event.data && event.data.type === "streamlit:render") callback(event.data.args || {});
  });
  post("streamlit:componentReady", { apiVersion: 1 });
}

export const setComponentValue = (value) =>
  post("streamlit:setComponentValue", { value, dataType: "json" });

export const setFrameHeight = (height) => post("streamlit:setFrameHeight", { height });
