"""Video needle haystacks (``niah build video-niah``)."""
