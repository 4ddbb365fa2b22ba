FROM nvcr.io/nvidia/pytorch:25.02-py3

COPY train.py /workspace

COPY requirements.txt /workspace

RUN pip install -r requirements.txt