"""Constants shared by tests: API keys of three tenants and their auth headers."""

KEY_A, KEY_B, KEY_A2 = "key-a", "key-b", "key-a2"
API_KEYS = f"{KEY_A}=org-a/proj-a,{KEY_B}=org-b/proj-b,{KEY_A2}=org-a/proj-other"
A = {"Authorization": f"Bearer {KEY_A}"}  # organization a, project a
B = {"Authorization": f"Bearer {KEY_B}"}  # another organization
A2 = {"Authorization": f"Bearer {KEY_A2}"}  # same organization, another project
